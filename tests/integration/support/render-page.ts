/**
 * Renders a route module's page to HTML the way the server does (a static data router), with the
 * loader data (and, for a POST, the action data) given: the page's markup can be checked without the
 * layouts above it (the console's session middleware) and without a browser.
 */
import { createElement, type ComponentType } from "react";
import { renderToString } from "react-dom/server";
import { createStaticHandler, createStaticRouter, StaticRouterProvider, useActionData, useLoaderData, useParams } from "react-router";

export async function renderPage(Component: ComponentType<never>, input: { pattern: string; url: string; loaderData: unknown; actionData?: unknown }): Promise<string> {
  const Page = () => createElement(Component as ComponentType<Record<string, unknown>>, { loaderData: useLoaderData(), actionData: useActionData(), params: useParams(), matches: [] });
  const routes = [{ id: "page", path: input.pattern, loader: () => input.loaderData, action: () => input.actionData ?? null, Component: Page }];
  const handler = createStaticHandler(routes);
  const post = input.actionData !== undefined;
  const context = await handler.query(new Request(new URL(input.url, "http://localhost"), post ? { method: "POST", body: new URLSearchParams() } : undefined));
  if (context instanceof Response) throw new Error(`renderPage: the stand-in answered ${context.status}`);
  const router = createStaticRouter(handler.dataRoutes, context);
  return renderToString(createElement(StaticRouterProvider, { router, context }));
}
