// NOTE: imported by src/main.ts before anything else, so it imports nothing and uses no syntax or
// API newer than the Node.js versions it turns away.

/** The oldest Node.js Formgate runs on: better-sqlite3 ships prebuilt for 22 and newer, and 20 crashes in it. */
export const OLDEST_NODE = { major: 22, minor: 12 };

/**
 * What to tell someone running Formgate on a Node.js too old for it (`version` as in
 * `process.versions.node`); null when it is new enough. scripts/build.mjs and scripts/node-env.sh print the same words.
 */
export function unsupportedNodeMessage(version: string): string | null {
  const [major = 0, minor = 0] = version.split('.').map(Number);
  if (major > OLDEST_NODE.major || (major === OLDEST_NODE.major && minor >= OLDEST_NODE.minor)) return null;
  return (
    `Formgate needs Node.js 22.12 or later (a maintained line: 22, 24 or 26); this is v${version}.\n` +
    'scripts/install-node.sh 24 fetches the newest 24.x from the npm registry: export PATH="$(bash scripts/install-node.sh 24):$PATH"'
  );
}
