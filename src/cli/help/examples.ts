import type { Command } from 'commander';

/**
 * Two or three real command lines per command, shown at the end of its --help (clig.dev: lead
 * with examples). Plain strings, loaded with the program: no command module is imported for help.
 */
const EXAMPLES: Record<string, string[]> = {
  '': [
    'mailverify verify --local alice@example.com',
    'mailverify bulk submit contacts.csv --local --output cleaned.csv',
    'mailverify login',
    'mailverify bulk submit contacts.csv --wait --output cleaned.csv',
  ],
  verify: [
    'mailverify verify alice@example.com',
    'mailverify --json verify - < addresses.txt > results.ndjson',
    'mailverify verify --local --fail-on invalid,unknown ops@example.com',
  ],
  serve: [
    'mailverify serve',
    'mailverify serve --host 0.0.0.0 --port 8025 --data-dir /var/lib/mailverify',
    'MAILVERIFY_LOG_LEVEL=info mailverify serve --no-worker',
  ],
  worker: ['mailverify worker --data-dir /var/lib/mailverify', 'mailverify worker --database-url postgres://mv@db/mailverify'],
  doctor: ['mailverify doctor', 'mailverify doctor --dns-server 9.9.9.9'],
  login: [
    'mailverify login',
    'mailverify login --web',
    'echo "$MV_TOKEN" | mailverify login --with-token',
    'mailverify login --profile staging --base-url https://verify.staging.example.com',
    'mailverify login --email me@example.com --password-stdin < password.txt',
  ],
  logout: ['mailverify logout', 'mailverify --base-url https://verify.example.com logout'],
  whoami: ['mailverify whoami', 'mailverify --json whoami', 'mailverify --profile staging whoami'],
  profile: ['mailverify profile list', 'mailverify profile use staging', 'mailverify verify --profile staging alice@example.com'],
  'profile list': ['mailverify profile list', 'mailverify --json profile list'],
  'profile use': ['mailverify profile use staging', 'MAILVERIFY_PROFILE=production mailverify whoami'],
  'profile remove': ['mailverify profile remove staging'],
  bulk: ['mailverify bulk submit contacts.csv', 'mailverify bulk status <job> --watch', 'mailverify bulk results <job> --output cleaned.csv'],
  'bulk submit': [
    'mailverify bulk submit contacts.csv --wait --output cleaned.csv',
    'mailverify bulk submit export.csv --column "Work Email"',
    'cut -d, -f3 crm.csv | mailverify --json bulk submit -',
    'mailverify bulk submit contacts.csv --local --output cleaned.csv',
    'mailverify bulk submit contacts.csv --local --output cleaned.csv --fail-on invalid=5% --fail-on unknown=20%',
  ],
  'bulk status': ['mailverify bulk status <job>', 'mailverify bulk status <job> --watch'],
  'bulk local': ['mailverify bulk local prune', 'mailverify bulk local prune --older-than 7d'],
  'bulk local prune': ['mailverify bulk local prune', 'mailverify bulk local prune --older-than 0s --data-dir ./work'],
  'bulk list': ['mailverify bulk list', 'mailverify --json bulk list --limit 100'],
  'bulk delete': ['mailverify bulk delete <job>', 'mailverify bulk delete <job> <job>'],
  'bulk results': [
    'mailverify bulk results <job> --output cleaned.csv',
    'mailverify bulk results <job> --wait --only valid,catch_all --output keep.csv',
    'mailverify bulk results <job> --input contacts.csv --format ndjson',
    'mailverify bulk results <job> --output cleaned.csv --fail-on invalid=5%',
  ],
  webhooks: ['mailverify webhooks add https://example.com/hooks/mailverify', 'mailverify webhooks list'],
  'webhooks add': [
    'mailverify webhooks add https://example.com/hooks/mailverify',
    'mailverify webhooks add https://example.com/hooks --description "CRM sync"',
  ],
  'webhooks list': ['mailverify webhooks list', 'mailverify --json webhooks list'],
  'webhooks remove': ['mailverify webhooks remove <id>'],
  'webhooks test': ['mailverify webhooks test <id>'],
  admin: ['mailverify admin user add alice@example.com --credits 1000', 'mailverify admin token create alice@example.com --name ci'],
  'admin user': ['mailverify admin user add alice@example.com --credits 1000', 'mailverify admin user list --json'],
  'admin user add': [
    'mailverify admin user add alice@example.com --credits 1000',
    'mailverify admin user add bob@example.com --rate-limit 50 --password-stdin < password.txt',
  ],
  'admin user list': ['mailverify admin user list', 'mailverify --json admin user list'],
  'admin user delete': ['mailverify admin user delete alice@example.com'],
  'admin user password': ['mailverify admin user password alice@example.com --password-stdin < password.txt'],
  'admin credits': ['mailverify admin credits add alice@example.com 500'],
  'admin credits add': ['mailverify admin credits add alice@example.com 500', 'mailverify admin credits add alice@example.com -- -100'],
  'admin rate-limit': ['mailverify admin rate-limit set alice@example.com 100'],
  'admin rate-limit set': ['mailverify admin rate-limit set alice@example.com 100', 'mailverify admin rate-limit set alice@example.com 1000 --window 60'],
  'admin token': ['mailverify admin token create alice@example.com --name ci'],
  'admin token create': ['mailverify admin token create alice@example.com', 'MAILVERIFY_TOKEN=$(mailverify admin token create ci@example.com --name ci)'],
  mcp: ['mailverify mcp', 'mailverify mcp --profile staging', 'mailverify mcp --local'],
  completion: [
    'source <(mailverify completion bash)',
    'mailverify completion zsh > "${fpath[1]}/_mailverify"',
    'mailverify completion fish > ~/.config/fish/completions/mailverify.fish',
  ],
  help: ['mailverify help exit-codes', 'mailverify help csv', 'mailverify help bulk submit'],
};

/** A command's path below the program: "bulk submit"; "" for the program itself. */
export function commandPath(command: Command): string {
  const names: string[] = [];
  for (let each: Command | null = command; each?.parent; each = each.parent) names.unshift(each.name());
  return names.join(' ');
}

/** Appends each command's examples to its --help, the program's and every subcommand's. */
export function addExamples(command: Command): void {
  const examples = EXAMPLES[commandPath(command)];
  if (examples) command.addHelpText('after', `\nExamples:\n${examples.map((line) => `  $ ${line}`).join('\n')}\n`);
  for (const sub of command.commands) addExamples(sub);
}
