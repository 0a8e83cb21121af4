/**
 * The back office's pages (issue 23): every route under the console's shell (routes/admin.shell.tsx)
 * says so through its handle (`consolePage`). Like the payment pages (decision 190) the server decides
 * from the matched route, never from the path's spelling: such a page loads no operator code (custom
 * CSS or JS, header and body code) and no analytics, has the strict Content-Security-Policy, is
 * `noindex` (header and meta) and never enters the page cache (it is `no-store`). The site's header
 * and footer are not drawn: the console has its own layout.
 */
interface ConsolePageHandle {
  consolePage?: boolean;
}

/** Whether any of the matched routes' handles marks a console page. */
export function isConsoleRoute(handles: readonly unknown[]): boolean {
  return handles.some((handle) => (handle as ConsolePageHandle | undefined)?.consolePage === true);
}

/** The X-Robots-Tag of every console answer. */
export const CONSOLE_ROBOTS = "noindex, nofollow";
