import js from '@eslint/js';
import tseslint from 'typescript-eslint';

/**
 * Fails an import from `files` whose relative path climbs into one of the `forbidden` folders; more
 * `[forbidden, why]` pairs (or ready patterns) add their own (a file matched by two configs keeps only the last).
 */
function layerRule(files, forbidden, why, ...more) {
  const patterns = [[forbidden, why], ...more].map((pair) => (Array.isArray(pair) ? { regex: `^(\\.\\./)+(${pair[0]})(/|\\.js$)`, message: pair[1] } : pair));
  return { files, rules: { 'no-restricted-imports': ['error', { patterns }] } };
}

/** The files at the root of src/server: the wiring that puts the service's parts together, and the CLI's doors into it. */
const SERVER_WIRING = 'app|serve|worker|service-parts|local-run|admin|settings';
/** Every part of src/server keeps below the wiring. */
const SERVER_PARTS = [SERVER_WIRING, 'the wiring at the root of src/server imports the parts, never the other way'];

/** The dashboard's pages and the API's routes share services (src/server/services), never each other's modules. */
const DASHBOARD_NOT_ROUTES = ['routes', 'the dashboard calls the services the routes call (src/server/services), never a route module'];

/** What the store never imports: every other part of the service. */
const STORE_BELOW = [
  `routes|services|jobs|webhooks|maintenance|receivers|dashboard|auth|metrics|http|schemas|verifier|network|logging|background|${SERVER_WIRING}`,
  'the store is below every part of the service',
];
/**
 * The store's folders, lowest first (docs/architecture.md "The store"), above its root (the interfaces,
 * the model, the shared helpers): each imports only those before it, and a dialect never the other.
 */
const STORE_LAYERS = { rows: 'flows|sqlite|postgres|open', flows: 'sqlite|postgres|open', sqlite: 'postgres|open', postgres: 'sqlite|open' };

/** What the engine never imports: every other layer. */
const ENGINE_OUTSIDE = ['cli|client|config|csv|server|wire|text', 'the engine imports nothing of the other layers'];
/** The engine's folders, lowest first (docs/architecture.md "The engine"): each imports only those before it. */
const ENGINE_LAYERS = ['core', 'lists', 'net', 'dns', 'rules', 'smtp', 'checks', 'bulk', 'evidence'];
/** The files at the root of src/engine: the top, which puts the folders together. */
const ENGINE_TOP = 'index|options|diagnose|standing|result-filter';

/** The files at the root of src/cli: the entry that runs the program, and what only it uses. */
const CLI_ENTRY = 'main|update-notice|update-check';
/** The folders the command tree and the commands share, lowest first (docs/architecture.md "The CLI"): each imports only those before it. */
const CLI_HELPERS = ['help', 'output', 'files', 'options', 'session', 'local-service'];
/**
 * The service's entry points and the store's open: the only modules of src/server the CLI imports
 * (docs/architecture.md "Layers"), statically or with import(), so that the service's parts change
 * behind them without the CLI knowing.
 */
const SERVER_DOORS = 'serve|worker|local-run|admin|settings|store/open/open-store';
const SERVER_DOORS_WHY = `the CLI enters the service by its doors (src/server/{serve,worker,local-run,admin,settings}.ts and src/server/store/open/open-store.ts), never one of its parts`;
/** Any module of src/server but the doors, as a path from the CLI (the one pattern a layerRule pair cannot say: "all but"). */
const BEHIND_SERVER_DOORS = `^(\\.\\./)+server/(?!(${SERVER_DOORS})\\.js$)`;
const CLI_SERVER_DOORS = { regex: BEHIND_SERVER_DOORS, message: SERVER_DOORS_WHY };

export default tseslint.config(
  { ignores: ['dist/', 'node_modules/', 'coverage/', 'bench/.work/'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    languageOptions: {
      globals: {
        process: 'readonly',
        console: 'readonly',
        Buffer: 'readonly',
        setTimeout: 'readonly',
        clearTimeout: 'readonly',
        setInterval: 'readonly',
        clearInterval: 'readonly',
        URL: 'readonly',
        AbortController: 'readonly',
        AbortSignal: 'readonly',
        TextEncoder: 'readonly',
        TextDecoder: 'readonly',
        structuredClone: 'readonly',
        setImmediate: 'readonly',
        performance: 'readonly',
      },
    },
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      '@typescript-eslint/consistent-type-imports': 'error',
      'no-console': 'off',
      eqeqeq: ['error', 'smart'],
    },
  },
  {
    // A function a reader sees on one screen; a table (of statements, of help lines) says so where it is longer.
    files: ['src/**/*.ts'],
    rules: { 'max-lines-per-function': ['error', { max: 80 }] },
  },
  // The layers of docs/architecture.md "Layers", as lint rules: an import that runs back up fails `npm run lint`.
  layerRule(['src/engine/**'], ...ENGINE_OUTSIDE),
  ...ENGINE_LAYERS.map((folder, index) =>
    layerRule([`src/engine/${folder}/**`], ...ENGINE_OUTSIDE, [
      [...ENGINE_LAYERS.slice(index + 1), ENGINE_TOP].join('|'),
      `the engine's folders are layers (${ENGINE_LAYERS.join(', ')}, then the root): ${folder}/ imports only those before it`,
    ]),
  ),
  layerRule(['src/client/**'], 'cli|server|config|csv', 'the client talks to the service over HTTP only (shared shapes live in src/wire)'),
  layerRule(['src/server/store/**'], ...STORE_BELOW),
  ...Object.entries(STORE_LAYERS).map(([folder, later]) =>
    layerRule([`src/server/store/${folder}/**`], ...STORE_BELOW, [
      later,
      `the store's folders are layers (the root, rows, flows, then sqlite and postgres, then open, which opens a store): ${folder}/ imports only those before it`,
    ]),
  ),
  layerRule(
    ['src/server/http/**'],
    `routes|services|dashboard|schemas|auth|jobs|webhooks|maintenance|receivers|metrics|verifier|network|logging|background|${SERVER_WIRING}`,
    'the HTTP helpers sit just above the store, below every other part of the service',
  ),
  layerRule(
    ['src/server/auth/**'],
    `routes|services|dashboard|jobs|webhooks|maintenance|receivers|metrics|verifier|network|logging|background|${SERVER_WIRING}`,
    'auth is below the routes and pages it guards',
  ),
  layerRule(
    ['src/server/jobs/**'],
    `webhooks|maintenance|routes|dashboard|${SERVER_WIRING}`,
    "the job runner knows no route or page, and shares its loop's parts with the webhook deliverer through src/server/background; maintenance wakes it, never the other way",
  ),
  layerRule(
    ['src/server/webhooks/**'],
    `jobs|maintenance|routes|dashboard|${SERVER_WIRING}`,
    "the webhook deliverer knows no route or page, and shares its loop's parts with the job runner through src/server/background; maintenance wakes it, never the other way",
  ),
  layerRule(
    ['src/server/maintenance/**'],
    `jobs|webhooks|routes|dashboard|${SERVER_WIRING}`,
    'maintenance services know the store, not the runner or the deliverer they wake (the wiring hands them a callback)',
  ),
  layerRule(
    ['src/server/receivers/**'],
    `jobs|webhooks|routes|dashboard|${SERVER_WIRING}`,
    'the evidence receivers (signatures, SNS fetches, what a post holds) know no route or page: the routes call them',
  ),
  layerRule(['src/server/{routes,dashboard,schemas,metrics,verifier,network,logging,background}/**'], ...SERVER_PARTS),
  layerRule(['src/server/dashboard/**'], ...DASHBOARD_NOT_ROUTES, SERVER_PARTS),
  layerRule(
    ['src/server/dashboard/common/**'],
    'pages|plugin',
    "what the dashboard's pages share sits below the pages and the plugin that registers them",
    SERVER_PARTS,
    DASHBOARD_NOT_ROUTES,
  ),
  layerRule(
    ['src/server/services/**'],
    `routes|dashboard|jobs|webhooks|maintenance|${SERVER_WIRING}`,
    'a service is what routes and pages both call: it knows neither, nor the background loops',
  ),
  layerRule(
    ['src/wire/**', 'src/text/**', 'src/config/**', 'src/csv/**'],
    'cli|client|server',
    'a lower layer never imports the CLI, the client or the service',
  ),
  // After the rule above, which it replaces for src/text: the bottom layer imports no other.
  layerRule(['src/text/**'], 'cli|client|server|config|csv|wire|engine', 'src/text is the bottom layer: it imports no other'),
  // Before the CLI's folder rules, which repeat it: for the files at the root of src/cli.
  { files: ['src/cli/**'], rules: { 'no-restricted-imports': ['error', { patterns: [CLI_SERVER_DOORS] }] } },
  {
    // no-restricted-imports sees no import(): the CLI's lazy loads of the service go through the doors too.
    files: ['src/cli/**'],
    rules: {
      'no-restricted-syntax': [
        'error',
        { selector: `ImportExpression[source.value=/${BEHIND_SERVER_DOORS.replaceAll('/', '\\/')}/]`, message: SERVER_DOORS_WHY },
      ],
    },
  },
  ...CLI_HELPERS.map((folder, index) =>
    layerRule(
      [`src/cli/${folder}/**`],
      [...CLI_HELPERS.slice(index + 1), 'commands', 'program', CLI_ENTRY].join('|'),
      `the CLI's shared folders are layers (${CLI_HELPERS.join(', ')}) below the commands, the command tree and the entry: ${folder}/ imports only those before it`,
      CLI_SERVER_DOORS,
    ),
  ),
  layerRule(['src/cli/commands/**'], `program|${CLI_ENTRY}`, 'the commands are below the command tree and the entry that load them', CLI_SERVER_DOORS),
  layerRule(
    ['src/cli/program/**'],
    'commands',
    "the command tree loads a command's module only when the command runs (import() in its action), so that --help stays light",
    [CLI_ENTRY, 'the entry at the root of src/cli builds the command tree, never the other way'],
    CLI_SERVER_DOORS,
  ),
  {
    // The dashboard's one browser script.
    files: ['web/static/**/*.js'],
    languageOptions: { globals: { document: 'readonly', navigator: 'readonly' } },
  },
);
