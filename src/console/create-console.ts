import type { IncomingMessage, ServerResponse } from 'node:http';
import { internalsOf, serveFetchApp } from '../adapter-kit/index.js';
import type { Processing } from '../index.js';
import type { JournalQuery } from '../journal/delivery-journal.js';
import { describeError } from '../shared/describe-error.js';
import { guardLogger } from '../shared/logger.js';
import { forwardedBy } from '../shared/loopback.js';
import { redactSecrets } from '../shared/redact-secrets.js';
import { runAction } from './console-actions.js';
import { resolveConsoleOptions, type ConsoleOptions, type ResolvedConsoleOptions } from './console-options.js';
import { htmlPage, jsonAnswer, redirect, refusal, withSecurity } from './console-responses.js';
import { cookieName, createConsoleSecrets, isLoopback, sameOrigin, type ConsoleSecrets } from './console-security.js';
import { deliveryStats } from './delivery-stats.js';
import { LiveHub } from './live-events.js';
import { createNotices, type Notices } from './notices.js';
import { deadLettersPage } from './pages/dead-letters-page.js';
import { deliveriesPage } from './pages/deliveries-page.js';
import { deliveryPage } from './pages/delivery-page.js';
import { heldPage } from './pages/held-page.js';
import { notFoundPage } from './pages/not-found-page.js';
import type { PageContext } from './pages/layout.js';
import { quarantinePage } from './pages/quarantine-page.js';
import { reconcilerPage } from './pages/reconciler-page.js';
import { resourcePage } from './pages/resource-page.js';
import { sandboxPage } from './pages/sandbox-page.js';
import { consoleAsset } from './static-assets.js';

/** What a fetch-style host may say about the request (node:http knows it; a Worker or Next may not). */
export interface ConsoleRequestInfo {
  /** The peer's address: without a `token`, only loopback peers are answered. */
  remoteAddress?: string;
  /** The mount path for this request, when the host strips it (Express's `req.baseUrl`). */
  basePath?: string;
}

/** The console, mountable anywhere: a fetch handler (Next, Hono, Workers) and a node handler (node:http, Express, Fastify's raw). */
export interface PixhookConsole {
  fetch(request: Request, info?: ConsoleRequestInfo): Promise<Response>;
  node(req: IncomingMessage, res: ServerResponse, next?: (error?: unknown) => void): void;
}

/** Replays done from this console: the quarantined body → the journal id of its latest replay. */
type ReplayLog = Map<string, string>;

export interface ConsoleState {
  options: ResolvedConsoleOptions;
  processing: Processing | undefined;
  replays: ReplayLog;
  notices: Notices;
  report: (error: unknown, where: string) => void;
}

const maxListLimit = 1000;

/**
 * The operator's view of pixhook: deliveries (live), a charge's or transfer's book, held events,
 * quarantine, dead letters and the reconciler, as server-rendered pages and the same data as JSON
 * under `/api/…`. Safe by default: loopback only without a `token`, every action a POST with a CSRF
 * token from the same origin, a strict Content-Security-Policy, every payload string escaped.
 */
export function createConsole(options: ConsoleOptions): PixhookConsole {
  const config = resolveConsoleOptions(options);
  const secrets = createConsoleSecrets(config.token);
  const log = guardLogger(config.logger);
  const state: ConsoleState = {
    options: config,
    processing: config.receiver === undefined ? undefined : internalsOf(config.receiver).processing,
    replays: new Map(),
    notices: createNotices(),
    report: (error, where) => log.error({ error: redactSecrets(describeError(error)) }, `pixhook console: ${where} failed`),
  };
  const live = new LiveHub(config.journal, (error) => state.report(error, 'the journal subscription'));

  async function handle(request: Request, info: ConsoleRequestInfo = {}): Promise<Response> {
    const url = new URL(request.url);
    const base = config.basePath ?? info.basePath ?? '';
    if (url.pathname !== base && !url.pathname.startsWith(`${base}/`)) return refusal(404, 'not_found', 'Not part of the console.', true);
    const path = url.pathname.slice(base.length) || '/';
    const wantsJson = path.startsWith('/api/');
    if (path === '/favicon.ico') return new Response(null, { status: 204 });

    // Who may ask: the token's holder, or (without a token) this machine only.
    if (config.token !== undefined) {
      const login = url.searchParams.get('token');
      if (login !== null && request.method === 'GET') {
        if (!secrets.loginMatches(login)) return refusal(401, 'token_invalid', 'This token does not open the console.', wantsJson);
        url.searchParams.delete('token');
        const cookie = `${cookieName}=${secrets.session}; HttpOnly; SameSite=Strict; Path=${base || '/'}`;
        return redirect(`${url.pathname}${url.search}`, { 'set-cookie': cookie });
      }
      if (!secrets.authorized(request.headers))
        return refusal(
          401,
          'token_required',
          'This console needs its token: open it once with ?token=<token>, or send Authorization: Bearer <token>.',
          wantsJson,
        );
    } else if (forwardedBy(request.headers) !== undefined) {
      // A proxy on this machine makes a remote client look local (its peer address, and often the Host it keeps).
      return refusal(
        403,
        'proxied_request',
        'Without a token the console answers this machine only, and this request came through a proxy (Forwarded, X-Forwarded-*, Via): give the console a token to open it behind one.',
        wantsJson,
      );
    } else if (
      !isLoopback(request.headers.get('host') ?? url.host) ||
      (info.remoteAddress !== undefined && !isLoopback(info.remoteAddress))
    ) {
      return refusal(
        403,
        'loopback_only',
        'Without a token the console answers this machine only (127.0.0.1); give it a token to open it to others.',
        wantsJson,
      );
    }

    if (request.method === 'POST') {
      const form = await readForm(request);
      if (!secrets.bearer(request.headers)) {
        if (!sameOrigin(request)) return refusal(403, 'cross_origin', 'Actions are accepted from the console’s own pages only.', wantsJson);
        if (!secrets.checkCsrf(form.get('_csrf') ?? request.headers.get('x-csrf-token')))
          return refusal(
            403,
            'csrf_token_invalid',
            'This form is missing its CSRF token, or it is stale: reload the page and try again.',
            wantsJson,
          );
      }
      return runAction(state, path, form, base, (request.headers.get('accept') ?? '').includes('application/json'));
    }
    if (request.method !== 'GET' && request.method !== 'HEAD') return refusal(405, 'method_not_allowed', 'GET or POST only.', wantsJson);

    if (path.startsWith('/assets/')) {
      const asset = await consoleAsset(path.slice('/assets/'.length));
      if (asset === undefined) return refusal(404, 'not_found', 'No such asset.', true);
      return new Response(asset.body, { headers: { 'content-type': asset.type, 'cache-control': 'no-cache' } });
    }
    if (path === '/live') return live.open(journalQuery(url.searchParams), wantsJson);
    const context = pageContext(base, secrets, url.searchParams.get('notice'));
    return wantsJson ? api(path.slice(4), url.searchParams) : page(path, url.searchParams, context);
  }

  async function page(path: string, params: URLSearchParams, context: PageContext): Promise<Response> {
    const { journal, book, quarantine, queue, reconciler, sandbox } = config;
    const canRun = state.processing !== undefined;
    if (path === '/') {
      if (sandbox === undefined) return redirect(`${context.base}/deliveries`);
      const [charges, transfers, deliveries, faults, entries] = await Promise.all([
        sandbox.charges(),
        sandbox.transfers?.() ?? [],
        sandbox.deliveries(),
        sandbox.faults(),
        journal.list({ limit: 20 }),
      ]);
      return htmlPage(
        sandboxPage(context, {
          charges,
          transfers,
          deliveries,
          faults,
          journal: entries,
          canReconcile: sandbox.reconcile !== undefined,
          canTransfer: sandbox.sendTransfer !== undefined,
          ...(sandbox.paymentFaults !== undefined && { paymentFaults: sandbox.paymentFaults }),
        }),
      );
    }
    if (path === '/deliveries') {
      const query = journalQuery(params);
      const [entries, gateway] = await Promise.all([journal.list(query), config.sandbox?.deliveries() ?? []]);
      return htmlPage(deliveriesPage(context, entries, query, gateway));
    }
    const delivery = /^\/deliveries\/([^/]+)$/.exec(path);
    if (delivery) {
      const entry = await journal.get(decodeURIComponent(delivery[1]!));
      return entry === undefined
        ? htmlPage(notFoundPage(context, 'No such delivery in the journal (it may have been dropped past the journal’s bound).'), 404)
        : htmlPage(deliveryPage(context, entry, canRun));
    }
    const resource = /^\/resources\/([^/]+)$/.exec(path);
    if (resource) {
      const id = decodeURIComponent(resource[1]!);
      const [found, held, entries] = await Promise.all([book?.get(id), book?.held(), journal.list({ resource: id })]);
      return htmlPage(
        resourcePage(
          context,
          id,
          found,
          (held ?? []).filter((h) => h.resourceId === id),
          entries,
          config.receiver !== undefined,
        ),
      );
    }
    if (path === '/held' && book) {
      const view = params.get('state') === 'closed' ? 'closed' : 'open';
      return htmlPage(heldPage(context, await book.held({ state: view }), config.receiver !== undefined, view));
    }
    if (path === '/quarantine' && quarantine)
      return htmlPage(quarantinePage(context, await quarantine.list({ start: 0, end: 199 }), state.replays, canRun));
    if (path === '/dead-letters' && queue) return htmlPage(deadLettersPage(context, await queue.listDeadLetters({ start: 0, end: 199 })));
    if (path === '/reconciler' && reconciler)
      return htmlPage(reconcilerPage(context, await reconciler.metrics(), reconciler.runs?.() ?? [], reconciler.runOnce !== undefined));
    return htmlPage(notFoundPage(context, 'No such page in the console (or the part it shows is not mounted).'), 404);
  }

  async function api(path: string, params: URLSearchParams): Promise<Response> {
    const { journal, book, quarantine, queue, reconciler, sandbox } = config;
    if (path === '/deliveries') return jsonAnswer(await journal.list(journalQuery(params)));
    const delivery = /^\/deliveries\/([^/]+)$/.exec(path);
    if (delivery) {
      const entry = await journal.get(decodeURIComponent(delivery[1]!));
      return entry === undefined ? jsonAnswer({ error: 'not_found' }, 404) : jsonAnswer(entry);
    }
    const resource = /^\/resources\/([^/]+)$/.exec(path);
    if (resource) {
      const id = decodeURIComponent(resource[1]!);
      const [found, held, entries] = await Promise.all([book?.get(id), book?.held(), journal.list({ resource: id })]);
      if (found === undefined && entries.length === 0) return jsonAnswer({ error: 'not_found' }, 404);
      return jsonAnswer({ id, book: found ?? null, held: (held ?? []).filter((h) => h.resourceId === id), deliveries: entries });
    }
    if (path === '/stats') return jsonAnswer(deliveryStats(await journal.list({ limit: maxListLimit })));
    if (path === '/held' && book) return jsonAnswer(await book.held(params.get('state') === 'closed' ? { state: 'closed' } : {}));
    if (path === '/watchdog' && config.watchdog) return jsonAnswer(config.watchdog.active());
    if (path === '/disputes' && book)
      return jsonAnswer(await book.disputes(params.get('open') === null ? {} : { open: params.get('open') !== 'false' }));
    if (path === '/quarantine' && quarantine) return jsonAnswer(await quarantine.list({ start: 0, end: 999 }));
    if (path === '/dead-letters' && queue) return jsonAnswer(await queue.listDeadLetters({ start: 0, end: 999 }));
    if (path === '/reconciler' && reconciler) return jsonAnswer({ metrics: await reconciler.metrics(), runs: reconciler.runs?.() ?? [] });
    if (path === '/sandbox' && sandbox) {
      const [charges, transfers, deliveries, faults] = await Promise.all([
        sandbox.charges(),
        sandbox.transfers?.() ?? [],
        sandbox.deliveries(),
        sandbox.faults(),
      ]);
      return jsonAnswer({ charges, transfers, deliveries, faults });
    }
    return jsonAnswer({ error: 'not_found' }, 404);
  }

  function pageContext(base: string, keys: ConsoleSecrets, noticeId: string | null): PageContext {
    const notice = noticeId === null ? undefined : state.notices.take(noticeId);
    return {
      base,
      csrf: keys.csrf,
      has: {
        sandbox: config.sandbox !== undefined,
        book: config.book !== undefined,
        quarantine: config.quarantine !== undefined,
        queue: config.queue !== undefined,
        reconciler: config.reconciler !== undefined,
        rerun: config.sandbox?.rerun !== undefined,
      },
      ...(notice !== undefined && { notice }),
      ...(config.watchdog !== undefined && { alerts: config.watchdog.active() }),
    };
  }

  /** Never rejects: a failing journal, book or store is a 500 page (reported), not a crash. */
  async function fetchHandler(request: Request, info?: ConsoleRequestInfo): Promise<Response> {
    let response: Response;
    try {
      response = await handle(request, info);
    } catch (error) {
      state.report(error, `${request.method} ${new URL(request.url).pathname}`);
      response = refusal(
        500,
        'console_failed',
        'A part of the console failed (see the server log).',
        new URL(request.url).pathname.includes('/api/'),
      );
    }
    return withSecurity(response);
  }

  return {
    fetch: fetchHandler,
    // Mounted on Node through the adapters' one bridge; a failure is reported, answered 500, never handed to `next`.
    node: (req, res) => serveFetchApp(fetchHandler, req, res, (error) => state.report(error, 'answering a request')),
  };
}

async function readForm(request: Request): Promise<URLSearchParams> {
  const type = request.headers.get('content-type') ?? '';
  if (!type.startsWith('application/x-www-form-urlencoded')) return new URLSearchParams();
  const text = await request.text();
  return new URLSearchParams(text.slice(0, 64 * 1024));
}

/** The journal's filters from a query string: `event`, `status`, `reason`, `resource`, `before`, `limit`. */
function journalQuery(params: URLSearchParams): JournalQuery {
  const query: JournalQuery = {};
  const text = (name: 'event' | 'reason' | 'resource' | 'before') => {
    const value = params.get(name);
    if (value !== null && value !== '') query[name] = value.slice(0, 200);
  };
  text('event');
  text('reason');
  text('resource');
  text('before');
  const status = params.get('status');
  if (status !== null && /^\d{3}$/.test(status)) query.status = Number(status);
  const limit = params.get('limit');
  if (limit !== null && /^\d{1,4}$/.test(limit)) query.limit = Math.min(maxListLimit, Math.max(1, Number(limit)));
  return query;
}
