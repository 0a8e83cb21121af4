/**
 * The website's analytics id (spec §3 "analytics id"): a Google tag id (GA4 "G-…", Ads "AW-…",
 * Floodlight "DC-…", legacy Universal Analytics "UA-…") or a Google Tag Manager container ("GTM-…").
 * Anything else is ignored, so the id can never inject markup.
 */
export type AnalyticsProvider = "gtag" | "gtm";

interface AnalyticsTag {
  provider: AnalyticsProvider;
  id: string;
}

const GTAG_ID = /^(?:G|AW|DC|UA)-[A-Z0-9]+(?:-[0-9]+)?$/;
const GTM_ID = /^GTM-[A-Z0-9]+$/;

export function parseAnalyticsId(value: string | null | undefined): AnalyticsTag | null {
  const id = (value ?? "").trim().toUpperCase();
  if (GTM_ID.test(id)) return { provider: "gtm", id };
  if (GTAG_ID.test(id)) return { provider: "gtag", id };
  return null;
}

/**
 * The extra Content-Security-Policy sources each provider needs (Google's published CSP guidance
 * for the Google tag and Tag Manager). Our own nonce already allows the tags we write ourselves.
 */
export const ANALYTICS_CSP_SOURCES: Record<
  AnalyticsProvider,
  { scriptSrc: string[]; connectSrc: string[]; imgSrc: string[]; frameSrc: string[] }
> = {
  gtag: {
    scriptSrc: ["https://*.googletagmanager.com"],
    connectSrc: ["https://*.google-analytics.com", "https://*.analytics.google.com", "https://*.googletagmanager.com"],
    imgSrc: ["https://*.google-analytics.com", "https://*.googletagmanager.com"],
    frameSrc: [],
  },
  gtm: {
    scriptSrc: ["https://*.googletagmanager.com"],
    connectSrc: ["https://*.google-analytics.com", "https://*.analytics.google.com", "https://*.googletagmanager.com"],
    imgSrc: ["https://*.google-analytics.com", "https://*.googletagmanager.com"],
    frameSrc: ["https://www.googletagmanager.com"],
  },
};

/**
 * The snippets a site builder installs for the tag: `head` goes at the top of <head>, `body` right
 * after <body> (Tag Manager's no-script fallback). Every script carries the request's CSP nonce.
 */
export function analyticsSnippets(tag: AnalyticsTag | null, nonce: string): { head: string; body: string } {
  if (!tag) return { head: "", body: "" };
  const n = nonce ? ` nonce="${nonce}"` : "";
  // The id matched a strict pattern above: letters, digits and hyphens only.
  const id = tag.id;
  if (tag.provider === "gtm") {
    return {
      head:
        `<script${n}>(function(w,d,s,l,i){w[l]=w[l]||[];w[l].push({'gtm.start':new Date().getTime(),event:'gtm.js'});` +
        `var f=d.getElementsByTagName(s)[0],j=d.createElement(s),dl=l!='dataLayer'?'&l='+l:'';j.async=true;` +
        `j.src='https://www.googletagmanager.com/gtm.js?id='+i+dl;var c=d.querySelector('script[nonce]');` +
        `if(c){j.setAttribute('nonce',c.nonce||c.getAttribute('nonce'))}f.parentNode.insertBefore(j,f);` +
        `})(window,document,'script','dataLayer','${id}');</script>`,
      body:
        `<noscript><iframe src="https://www.googletagmanager.com/ns.html?id=${id}" height="0" width="0" hidden ` +
        `title="Google Tag Manager"></iframe></noscript>`,
    };
  }
  return {
    head:
      `<script async src="https://www.googletagmanager.com/gtag/js?id=${id}"${n}></script>` +
      `<script${n}>window.dataLayer=window.dataLayer||[];function gtag(){dataLayer.push(arguments);}` +
      `gtag('js',new Date());gtag('config','${id}');</script>`,
    body: "",
  };
}
