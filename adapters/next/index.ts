export { createAppRouteHandler } from './app-route-handler.js';
export type { AppRouteHandler, AppRouteHandlerOptions, ReceiverSource } from './app-route-handler.js';
export { createPagesApiHandler } from './pages-api-handler.js';
export type { PagesApiHandler, PagesApiHandlerOptions } from './pages-api-handler.js';
