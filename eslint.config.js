import js from '@eslint/js';
import tseslint from 'typescript-eslint';

/** Fails an import from `files` whose relative path climbs into one of the `forbidden` folders. */
function layerRule(files, forbidden, why) {
  const regex = `^(\\.\\./)+(${forbidden})(/|\\.js$)`;
  return { files, rules: { 'no-restricted-imports': ['error', { patterns: [{ regex, message: why }] }] } };
}

export default tseslint.config(
  { ignores: ['dist/', 'node_modules/', 'coverage/', 'bench/.work/'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    languageOptions: {
      globals: { process: 'readonly', console: 'readonly', Buffer: 'readonly', setTimeout: 'readonly', clearTimeout: 'readonly', setInterval: 'readonly', clearInterval: 'readonly', URL: 'readonly', AbortController: 'readonly', AbortSignal: 'readonly', TextEncoder: 'readonly', TextDecoder: 'readonly', structuredClone: 'readonly', setImmediate: 'readonly', performance: 'readonly' },
    },
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      '@typescript-eslint/consistent-type-imports': 'error',
      'no-console': 'off',
      eqeqeq: ['error', 'smart'],
    },
  },
  // The layers of docs/architecture.md "Layers", as lint rules: an import that runs back up fails `npm run lint`.
  layerRule(['src/engine/**'], 'cli|client|config|csv|server|wire|text', 'the engine imports nothing of the other layers'),
  layerRule(['src/client/**'], 'cli|server|config|csv', 'the client talks to the service over HTTP only (shared shapes live in src/wire)'),
  layerRule(['src/server/store/**'], 'routes|jobs|webhooks|dashboard|auth|metrics|http|schemas', 'the store is below every part of the service'),
  layerRule(['src/wire/**', 'src/text/**', 'src/config/**', 'src/csv/**'], 'cli|client|server', 'a lower layer never imports the CLI, the client or the service'),
  layerRule(['src/cli/program/**'], 'commands', "the command tree loads a command's module only when the command runs (import() in its action), so that --help stays light"),
  {
    // The dashboard's one browser script.
    files: ['web/static/**/*.js'],
    languageOptions: { globals: { document: 'readonly', navigator: 'readonly' } },
  },
);
