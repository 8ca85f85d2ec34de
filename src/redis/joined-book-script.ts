import { defineScript } from './redis-client.js';

// The dedupe claim and the book's record in one script: a port of book-state.ts's recordStep and
// evaluate-policy.ts, kept equal to them by a differential property (test/redis). What depends on the
// event alone (times as ISO text, the payer's document as ASCII, the payment time) is computed by the
// caller and passed in ARGV[3]; what depends on the book is decided here, atomically.
//
// KEYS: 1 dedupe key · 2 resource · 3 held · 4 held-keys · 5 open · 6 disputed · 7 expecting
// ARGV: 1 owner · 2 claim TTL ms · 3 the event (JSON, kept verbatim in a hold) · 4… the fact, one field each
// (the order of \`factFields\`; an optional text is '' when absent, else '+' and the text; the policy one letter per reason)
// → { 'claimed', result JSON or 'apply' (applied, no violation) } | { 'done' } | { 'done', duplicate hold JSON } | { 'in_flight' }

/** The fact's fields, in ARGV order from ARGV[4]. */
export const factFields = [
  'rk',
  'hk',
  'id',
  'kind',
  'name',
  'status',
  'amount',
  'channel',
  'deliveryId',
  'dedupeKey',
  'at',
  'paidAtMs',
  'paidAt',
  'statesPayment',
  'confirmed',
  'policy',
  'heldId',
  'maxTimeline',
  'retentionMs',
  'score',
  'endToEndId',
  'document',
  'infraction',
] as const;

export const joinedClaimScript = defineScript(`
local function opt(v) if v == '' then return nil end return string.sub(v, 2) end
local f = { rk = ARGV[4], hk = ARGV[5], id = ARGV[6], kind = ARGV[7], name = ARGV[8], status = ARGV[9], amount = tonumber(ARGV[10]),
  channel = ARGV[11], deliveryId = opt(ARGV[12]), dedupeKey = ARGV[13], at = ARGV[14], paidAtMs = tonumber(ARGV[15]), paidAt = ARGV[16],
  statesPayment = ARGV[17] == '1', heldId = ARGV[20], maxTimeline = tonumber(ARGV[21]), retentionMs = tonumber(ARGV[22]),
  score = ARGV[23], endToEndId = opt(ARGV[24]), document = opt(ARGV[25]), policy = {} }
if ARGV[18] == '1' then f.confirmed = true elseif ARGV[18] == '0' then f.confirmed = false end
for i, reason in ipairs({ 'stale_status', 'amount_mismatch', 'payer_mismatch', 'paid_after_expiry', 'duplicate_payment', 'unknown_charge', 'not_confirmed' }) do
  if string.sub(ARGV[19], i, i) == 'h' then f.policy[reason] = 'hold' else f.policy[reason] = 'flag' end
end
if ARGV[26] ~= '' then f.infraction = cjson.decode(ARGV[26]) end
local function arr(t) if type(t) == 'table' then return t end return {} end
local function push(list, item, max)
  list = arr(list)
  table.insert(list, item)
  while #list > max do table.remove(list, 1) end
  return list
end
local function entry(outcome, reasons, heldId)
  return { name = f.name, status = f.status, amountInCents = f.amount, channel = f.channel, deliveryId = f.deliveryId,
    at = f.at, outcome = outcome, reasons = reasons, heldId = heldId }
end
local function save(r, had)
  local open, any = false, false
  for _, d in ipairs(arr(r.disputes)) do any = true if d.open then open = true end end
  local json = cjson.encode(r)
  if f.retentionMs > 0 and not open then redis.call('SET', KEYS[2], json, 'PX', f.retentionMs) else redis.call('SET', KEYS[2], json) end
  if any then redis.call('SADD', KEYS[6], f.rk) elseif had then redis.call('SREM', KEYS[6], f.rk) end
end
local function resource()
  local raw = redis.call('GET', KEYS[2])
  if raw then return cjson.decode(raw), true end
  return { id = f.id, kind = f.kind, timeline = {}, payments = {}, disputes = {} }, false
end
-- A retry of a held event (or its copy on the other channel): the same hold, never a second.
local function duplicateHold()
  local heldId = redis.call('HGET', KEYS[4], f.hk)
  if not heldId then return nil end
  local held = cjson.decode(redis.call('HGET', KEYS[3], heldId)).held
  local reasons = {}
  for _, v in ipairs(arr(held.violations)) do table.insert(reasons, v.reason) end
  local r = resource()
  r.timeline = push(r.timeline, entry('duplicate_hold', reasons, heldId), f.maxTimeline)
  save(r, #arr(r.disputes) > 0)
  return cjson.encode({ outcome = 'duplicate_hold', violations = held.violations, heldId = heldId })
end

local claim = redis.call('GET', KEYS[1])
if claim == 'd' then
  local dup = duplicateHold()
  if dup then return { 'done', dup } end
  return { 'done' }
end
if claim then return { 'in_flight' } end
redis.call('SET', KEYS[1], 'c:' .. ARGV[1], 'PX', ARGV[2])
local dup = duplicateHold()
if dup then return { 'claimed', dup } end

local rankT = { pending = 0, paid = 1, canceled = 1, expired = 1, refunded = 2 }
local rankO = { created = 0, queued = 0, processing = 1, completed = 2, canceled = 2, refused = 2 }
local firstStatuses = { pending = true, created = true, queued = true }
local function forward(from, to)
  local rank = f.kind == 'transaction' and rankT or rankO
  local a, b = rank[from], rank[to]
  if a == nil or b == nil then return nil end
  return b > a
end
local function movesForward(from, to)
  if f.kind == 'transaction' and from == 'expired' and to == 'paid' then return true end
  return forward(from, to) == true
end
local function samePayment(a, b)
  if a.endToEndId ~= nil and b.endToEndId ~= nil then return a.endToEndId == b.endToEndId end
  return a.amountInCents == b.amountInCents
end
local function number(n) if n == math.floor(n) then return string.format('%d', n) end return string.format('%.14g', n) end
local function isoMs(s)
  local y, mo, d, h, mi, se, ms = string.match(s, '^([+-]?%d+)-(%d+)-(%d+)T(%d+):(%d+):(%d+)%.(%d+)Z$')
  y, mo, d = tonumber(y), tonumber(mo), tonumber(d)
  if mo <= 2 then y = y - 1 end
  local era = math.floor(y / 400)
  local yoe = y - era * 400
  local doy = math.floor((153 * ((mo + 9) % 12) + 2) / 5) + d - 1
  local days = era * 146097 + yoe * 365 + math.floor(yoe / 4) - math.floor(yoe / 100) + doy - 719468
  return ((days * 24 + tonumber(h)) * 60 + tonumber(mi)) * 60000 + tonumber(se) * 1000 + tonumber(ms)
end
-- The document as the event wrote it (digits, '*' for a masked position, '?' otherwise) against the expected digits.
local function sameDocument(expected, written)
  if written == nil or written == '' then return nil end
  if #written ~= #expected then return false end
  local visible = 0
  for i = 1, #written do
    local c = string.sub(written, i, i)
    if c ~= '*' then
      if c ~= string.sub(expected, i, i) then return false end
      visible = visible + 1
    end
  end
  if visible == 0 then return nil end
  return true
end

local r, existed = resource()
local had = #arr(r.disputes) > 0
local from = r.status
local violations = {}
local function add(reason, message) table.insert(violations, { reason = reason, action = f.policy[reason], message = message }) end
local payment = { endToEndId = f.endToEndId, amountInCents = f.amount }

if from ~= nil and f.name ~= 'transaction_infraction' and f.status ~= from and not movesForward(from, f.status)
  and not (firstStatuses[from] and firstStatuses[f.status]) and forward(from, f.status) == false then
  add('stale_status', f.name .. ' states "' .. f.status .. '" after "' .. from .. '": it would move the ' .. f.kind .. ' backwards.')
end
if f.statesPayment then
  local payments = existed and arr(r.payments) or {}
  if #payments > 0 then
    local known = false
    for _, p in ipairs(payments) do if samePayment(p, payment) then known = true end end
    if not known then add('duplicate_payment', 'A second, different payment on a charge already paid (another endToEndId, or another amount without one).') end
  end
  if from == nil or from == 'expired' or (from ~= 'paid' and forward(from, 'paid') ~= false) then
    local expected = existed and r.expected or nil
    if expected == nil then
      if redis.call('EXISTS', KEYS[7]) == 1 then add('unknown_charge', 'A payment for a charge this book never expected.') end
    else
      if f.amount ~= expected.amountInCents then
        add('amount_mismatch', 'Paid ' .. number(f.amount) .. ' cents; ' .. number(expected.amountInCents) .. ' cents were expected.')
      end
      if expected.payerDocument ~= nil and sameDocument(expected.payerDocument, f.document) == false then
        add('payer_mismatch', "The payer's document is not the one expected.")
      end
      if expected.expiresAt ~= nil and from ~= 'expired' and f.paidAtMs > isoMs(expected.expiresAt) then
        add('paid_after_expiry', 'Paid at ' .. f.paidAt .. ', after the charge expired at ' .. expected.expiresAt .. '.')
      end
    end
    if from == 'expired' then add('paid_after_expiry', 'Paid after the gateway reported the charge expired.') end
  end
end
if f.confirmed == false then add('not_confirmed', "The gateway's record does not confirm this event's status and amount.") end

local reasons, hold = {}, false
for _, v in ipairs(violations) do
  table.insert(reasons, v.reason)
  if v.action == 'hold' then hold = true end
end
if r.amountInCents == nil and r.expected == nil then r.amountInCents = f.amount end
if f.infraction then
  local inf, disputes, index = f.infraction, arr(r.disputes), nil
  for i, d in ipairs(disputes) do
    if index == nil and ((inf.id ~= nil and d.id == inf.id) or (inf.id == nil and d.id == nil and (inf.openedAt == nil or d.openedAt == inf.openedAt))) then index = i end
  end
  local earlier = index and disputes[index] or {}
  local status = inf.status or earlier.status
  local closing = { closed = 1, resolved = 1, rejected = 1, accepted = 1, canceled = 1, cancelled = 1, refunded = 1, finished = 1, concluded = 1 }
  local dispute = { resourceId = f.id, openedAt = earlier.openedAt or inf.openedAt or f.at, open = status == nil or closing[string.lower(status)] == nil,
    id = inf.id or earlier.id, status = status, reason = inf.reason or earlier.reason, amountInCents = inf.amountInCents or earlier.amountInCents }
  if index then disputes[index] = dispute else table.insert(disputes, dispute) end
  r.disputes = disputes
end

if hold then
  local heldId = f.heldId
  r.timeline = push(r.timeline, entry('held', reasons, heldId), f.maxTimeline)
  save(r, had)
  local held = cjson.encode({ heldId = heldId, resourceId = f.id, kind = f.kind, dedupeKey = f.dedupeKey, violations = violations,
    channel = f.channel, deliveryId = f.deliveryId, heldAt = f.at, state = 'held' })
  redis.call('HSET', KEYS[3], heldId, '{"held":' .. string.sub(held, 1, -2) .. ',"event":' .. ARGV[3] .. '}}')
  redis.call('HSET', KEYS[4], f.hk, heldId)
  redis.call('ZADD', KEYS[5], f.score, heldId)
  return { 'claimed', cjson.encode({ outcome = 'held', violations = violations, heldId = heldId }) }
end

if r.status == nil or movesForward(r.status, f.status) then
  r.status = f.status
  r.amountInCents = f.amount
end
if f.statesPayment then
  local payments, known = arr(r.payments), false
  for _, p in ipairs(payments) do if samePayment(p, payment) then known = true end end
  if not known then payments = push(payments, payment, 20) end
  r.payments = payments
end
r.timeline = push(r.timeline, entry('apply', reasons), f.maxTimeline)
save(r, had)
if #violations == 0 then return { 'claimed', 'apply' } end
return { 'claimed', cjson.encode({ outcome = 'apply', violations = violations }) }
`);
