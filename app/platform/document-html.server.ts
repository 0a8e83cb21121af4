/**
 * The finished HTML of each document entry.server.tsx renders, by its Response: server/page-answer.ts sends
 * the string with `res.end` instead of reading the Response's web stream back chunk by chunk (a
 * Response React Router replaced, e.g. for HEAD, is not in here and is streamed as before;
 * docs/decisions/150).
 */
export const documentHtml = new WeakMap<Response, string>();
