// Tells the server the browser's time zone (a `tz` cookie), so that pages show times in it
// when the account has chosen none (src/dashboard/time-zone.ts checks the name).
(() => {
  const zone = Intl.DateTimeFormat().resolvedOptions().timeZone;
  if (!zone || document.cookie.split('; ').includes(`tz=${encodeURIComponent(zone)}`)) return;
  // biome-ignore lint/suspicious/noDocumentCookie: the Cookie Store API is not in every browser the dashboard supports
  document.cookie = `tz=${encodeURIComponent(zone)}; path=/; max-age=31536000; samesite=lax`;
})();
