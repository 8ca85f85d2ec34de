export { createAppRouteHandler, createAppRouteHandlers } from './app-route-handler.js';
export type { AppRouteHandler, AppRouteHandlerOptions, AppRouteHandlers, ReceiverSource } from './app-route-handler.js';
export { createPagesApiHandler } from './pages-api-handler.js';
export type { PagesApiHandler, PagesApiHandlerOptions } from './pages-api-handler.js';
