import sanitizeHtml from "sanitize-html";

/**
 * Sanitises operator HTML (content items, policies, success messages) before it is rendered:
 * formatting, lists, headings, links and images only; no scripts, styles, event handlers or
 * javascript: URLs. Links that open a new tab get rel="noopener noreferrer".
 */
export function sanitizeOperatorHtml(html: string): string {
  return sanitizeHtml(html, {
    allowedTags: [
      "p", "br", "strong", "b", "em", "i", "u", "s", "small", "sup", "sub", "mark",
      "h2", "h3", "h4", "h5", "h6", "ul", "ol", "li", "dl", "dt", "dd",
      "a", "img", "blockquote", "hr", "table", "thead", "tbody", "tr", "th", "td", "caption", "span", "div",
    ],
    allowedAttributes: {
      a: ["href", "title", "target", "rel"],
      img: ["src", "alt", "width", "height", "loading"],
      th: ["scope", "colspan", "rowspan"],
      td: ["colspan", "rowspan"],
      "*": ["id", "class", "lang"],
    },
    allowedSchemes: ["http", "https", "mailto", "tel", "sms"],
    allowedSchemesAppliedToAttributes: ["href", "src"],
    allowProtocolRelative: false,
    transformTags: {
      a: (tagName, attribs) => ({
        tagName,
        attribs:
          attribs.target === "_blank" ? { ...attribs, rel: "noopener noreferrer" } : attribs,
      }),
      img: (tagName, attribs) => ({ tagName, attribs: { loading: "lazy", ...attribs } }),
      // Operator content sits under the page's h1: demote a stray h1 to h2.
      h1: "h2",
    },
  });
}
