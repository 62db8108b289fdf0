// The layout of the thank-you and error pages, kept in a .ts file so it ships with `tsc` and is
// found the same way from src/ (tsx) and dist/. No external resources: fonts, images and scripts
// are all absent, so the page works under `default-src 'none'`.

// NOTE: the style is static (the dark theme is a class on <body>, or the browser's own preference), so its CSP hash never changes.
// Keep Handlebars syntax out of it: the style is spliced into the template source below.
export const PAGE_STYLE = `
*,*::before,*::after{box-sizing:border-box}
html{-webkit-text-size-adjust:100%;text-size-adjust:100%}
body{margin:0;min-height:100vh;display:flex;flex-direction:column;align-items:center;justify-content:center;padding:1.5rem 1rem;font:1.0625rem/1.6 system-ui,-apple-system,"Segoe UI",Roboto,"Helvetica Neue",Arial,sans-serif;background:#f3f4f6;color:#1a1c1f}
main{width:100%;max-width:36rem;padding:2rem 1.5rem;background:#fff;border-radius:.75rem;border-top:.375rem solid #1e7a44;box-shadow:0 1px 3px rgba(0,0,0,.12)}
main.page-error{border-top-color:#b3261e}
main.page-info{border-top-color:#0b57d0}
h1{margin:0 0 .75rem;font-size:1.625rem;line-height:1.25;overflow-wrap:anywhere}
.message{margin:0;white-space:pre-line;overflow-wrap:anywhere;color:#3d4249}
.errors{margin:1rem 0 0;padding-left:1.25rem;overflow-wrap:anywhere}
.errors li+li{margin-top:.25rem}
.back{margin:1.5rem 0 0}
a{color:#0b57d0;text-underline-offset:.15em}
a:focus-visible{outline:3px solid currentColor;outline-offset:2px;border-radius:2px}
footer{margin-top:1.25rem;font-size:.875rem;color:#4b5059}
body.theme-dark{background:#101317;color:#e8eaed}
.theme-dark main{background:#1c2026;border-top-color:#46b874;box-shadow:none}
.theme-dark main.page-error{border-top-color:#f28b82}
.theme-dark main.page-info{border-top-color:#8ab4f8}
.theme-dark .message{color:#c4c8ce}
.theme-dark a{color:#8ab4f8}
.theme-dark footer{color:#a9aeb6}
@media (prefers-color-scheme:dark){body{background:#101317;color:#e8eaed}main{background:#1c2026;border-top-color:#46b874;box-shadow:none}main.page-error{border-top-color:#f28b82}main.page-info{border-top-color:#8ab4f8}.message{color:#c4c8ce}a{color:#8ab4f8}footer{color:#a9aeb6}}
@media (min-width:40rem){main{padding:2.5rem 2.25rem}h1{font-size:1.875rem}}
`;

/** The one layout of both pages; every value is escaped by `{{…}}` (no triple-stash anywhere). */
export const PAGE_TEMPLATE = `<!doctype html>
<html lang="{{lang}}">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="robots" content="noindex">
<meta name="color-scheme" content="light dark">
<meta name="description" content="{{message}}">
<title>{{title}}</title>
<style>${PAGE_STYLE}</style>
</head>
<body class="{{theme}}">
<main class="page-{{kind}}">
<h1>{{title}}</h1>
<p class="message">{{message}}</p>
{{#if errors.length}}
<ul class="errors">
{{#each errors}}
<li>{{this}}</li>
{{/each}}
</ul>
{{/if}}
{{#if backUrl}}
<p class="back"><a href="{{backUrl}}"><span aria-hidden="true">{{arrow}}</span> {{backLabel}}{{#if backHost}} ({{backHost}}){{/if}}</a></p>
{{/if}}
</main>
{{#if branding}}
<footer>{{poweredBy}}</footer>
{{/if}}
</body>
</html>
`;
