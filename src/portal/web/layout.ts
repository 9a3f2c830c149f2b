/**
 * The page shell every portal page shares: head (our stylesheet only), a skip link, the
 * navigation for a signed-in account (with the sign-out form and its CSRF token) and the main
 * landmark. Scripts are external files from /portal/assets: the CSP forbids inline ones.
 */
import type { PortalAccount } from "../portal-service.js";
import { CSRF_FIELD } from "./csrf.js";
import type { SafeHtml } from "./html.js";
import { html } from "./html.js";

/** Where the portal is mounted. */
export const PORTAL_PREFIX = "/portal";

/** Who is looking at the page, when someone is signed in. */
export interface Viewer {
  account: PortalAccount;
  csrfToken: string;
}

/** What a page supplies to the shell. */
export interface PageParts {
  title: string;
  /** Which nav entry is current ("dashboard", "plans", ...). */
  current?: string;
  viewer?: Viewer;
  body: SafeHtml;
  /** Asset file names under /portal/assets to load as module scripts. */
  scripts?: readonly string[];
}

const NAV: readonly { id: string; label: string; path: string; adminOnly?: boolean }[] = [
  { id: "dashboard", label: "Dashboard", path: "/dashboard" },
  { id: "plans", label: "Plans", path: "/plans" },
  { id: "keys", label: "API keys", path: "/keys" },
  { id: "monitors", label: "Monitors", path: "/monitors" },
  { id: "explorer", label: "Explorer", path: "/explorer" },
  { id: "admin", label: "Admin", path: "/admin", adminOnly: true },
];

function nav(viewer: Viewer | undefined, current: string | undefined): SafeHtml {
  if (viewer === undefined) {
    return html`<nav aria-label="Portal"><ul>
      <li><a href="${PORTAL_PREFIX}/sign-in"${current === "sign-in" ? html` aria-current="page"` : ""}>Sign in</a></li>
      <li><a href="${PORTAL_PREFIX}/sign-up"${current === "sign-up" ? html` aria-current="page"` : ""}>Sign up</a></li>
    </ul></nav>`;
  }
  const items = NAV.filter((n) => n.adminOnly !== true || viewer.account.isAdmin).map(
    (n) =>
      html`<li><a href="${PORTAL_PREFIX}${n.path}"${n.id === current ? html` aria-current="page"` : ""}>${n.label}</a></li>`,
  );
  return html`<nav aria-label="Portal"><ul>${items}</ul>
    <form class="sign-out" method="post" action="${PORTAL_PREFIX}/sign-out">
      <input type="hidden" name="${CSRF_FIELD}" value="${viewer.csrfToken}">
      <span class="who">${viewer.account.name}</span>
      <button type="submit" class="secondary">Sign out</button>
    </form></nav>`;
}

/** The whole document for a page. */
export function layout(parts: PageParts): SafeHtml {
  const scripts = (parts.scripts ?? []).map(
    (s) => html`<script type="module" src="${PORTAL_PREFIX}/assets/${s}"></script>`,
  );
  return html`<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${parts.title} · Threadsight developer portal</title>
<link rel="icon" href="${PORTAL_PREFIX}/assets/favicon.svg" type="image/svg+xml">
<link rel="icon" href="/favicon.ico" sizes="32x32">
<link rel="stylesheet" href="${PORTAL_PREFIX}/assets/portal.css">
${scripts}
</head>
<body>
<a class="skip-link" href="#main">Skip to content</a>
<header class="site">
<a class="brand" href="${PORTAL_PREFIX}/">Threadsight <span>developer portal</span></a>
${nav(parts.viewer, parts.current)}
</header>
<main id="main" tabindex="-1">
<h1>${parts.title}</h1>
${parts.body}
</main>
</body>
</html>`;
}
