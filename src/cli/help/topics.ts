/**
 * `mailverify help <topic>`: what no single command's --help holds, man-page style. Loaded only by
 * the help command.
 */
export const TOPICS: Record<string, string> = {
  'exit-codes': `Exit codes (the same for every command; scripts may rely on them):

  0    ok
  1    the service, the network or something unexpected failed; --wait gave up (it prints how to resume)
  2    usage or bad input: a wrong flag, a malformed or unreadable list file, --strict and a changed list
  3    a verdict or reason code listed in --fail-on occurred (the results were printed)
  4    not authenticated: no token, the service refused it (unknown, revoked, expired), or it lacks
       the scope the command needs (403 insufficient_scope)
  5    insufficient tokens: the balance does not cover the request (nothing was charged)
  6    rate limited, still, after the retries
  7    not found: no such job (or one of another account)
  8    the job is not finished: bulk results without --wait
  9    cannot verify: results are unknown because the verifying side's port 25, resolver or proxy
       fails (not the addresses' fault); an existing --output file is left as it was (--force replaces it)
  10   a share named by --fail-on <verdict>=<share> was exceeded (bulk submit, bulk results): every
       output was written first; stderr says which share and by how much
  130  interrupted (Ctrl-C); bulk commands print the command that resumes

Under --json an error is one JSON object on stderr, stdout empty:
  {"error":{"code":"insufficient_tokens","message":"…","exitCode":5,"hint":"…"}}
code is the name above: ok, failure, usage, verdict_matched, unauthenticated, insufficient_tokens,
rate_limited, not_found, job_not_finished, cannot_verify, share_exceeded, interrupted.
`,
  environment: `Environment (a flag beats the environment, which beats the config file):

The CLI, as a client of a service
  MAILVERIFY_TOKEN        the API token (mv_…) or JWT to use instead of the stored one
  MAILVERIFY_BASE_URL     the service (--base-url), default http://127.0.0.1:8025
  MAILVERIFY_PROFILE      the profile (--profile): which stored service and token; default the current one
  MAILVERIFY_CONFIG_DIR   where the config (profiles) and the bulk job records live
  MAILVERIFY_RETRY_MAX_ATTEMPTS, MAILVERIFY_RETRY_MAX_ELAPSED_MS
                          how often and how long (ms) a failed request is tried again (tests, impatient scripts)

Local bulk runs (bulk submit --local)
  MAILVERIFY_LOCAL_DATA_DIR
                          where the work is kept (--data-dir), never the service's data dir

The service (serve, worker; the store's three for admin too)
  MAILVERIFY_DATA_DIR     the service's data directory (--data-dir)
  MAILVERIFY_DATABASE_URL a PostgreSQL database instead of SQLite (--database-url)
  MAILVERIFY_STORE_TIMEOUT
                          the time limit of every call to the database in ms (--store-timeout)
  MAILVERIFY_LOG_LEVEL    fatal … trace, or silent (--log-level)
  MAILVERIFY_LEASE_SECONDS
                          how long a claim on bulk work lasts unless renewed (--lease-seconds)
  MAILVERIFY_METRICS_PORT, MAILVERIFY_METRICS_HOST
                          the Prometheus metrics listener (--metrics-port, --metrics-host)
  MAILVERIFY_STANDING_INTERVAL
                          how often each egress's standing is checked, 0 = off (--standing-interval)
  MAILVERIFY_TRUST_PROXY  serve: the reverse proxies whose X-Forwarded-For is believed (--trust-proxy)
  MAILVERIFY_UPLOAD_RETENTION
                          serve: delete dashboard uploads never verified after this (--upload-retention)
  MAILVERIFY_CACHE_TTL, MAILVERIFY_CACHE_SCOPE, MAILVERIFY_REFUND_UNKNOWN=1
                          verdict reuse and refunds (--cache-ttl, --cache-scope, --refund-unknown)
  MAILVERIFY_RETENTION    delete finished jobs' addresses and results after this (--retention)
  MAILVERIFY_EVIDENCE_WINDOW  how old evidence may be to decide a verdict (--evidence-window, 180d)
  MAILVERIFY_ALLOW_PRIVATE_WEBHOOKS=1, MAILVERIFY_WEBHOOK_ENDPOINTS, MAILVERIFY_WEBHOOK_TESTS_PER_MINUTE, MAILVERIFY_WEBHOOK_RETENTION
                          webhook limits (--allow-private-webhooks, --webhook-endpoints, …)
  MAILVERIFY_WEBHOOK_RETRY_SCHEDULE
                          for testing only: webhook retry waits in seconds (e.g. 0,1,1)
  MAILVERIFY_TEST_DEVICE_CODE_SECONDS, MAILVERIFY_TEST_DEVICE_INTERVAL_SECONDS
                          for testing only: how long a login --web code lasts (600) and its poll interval (5)

The engine (verify --local, bulk submit --local, doctor, serve, worker; each the same as its flag)
  MAILVERIFY_DNS_SERVERS, MAILVERIFY_SMTP_PORT, MAILVERIFY_HELO, MAILVERIFY_MAIL_FROM,
  MAILVERIFY_DNSBL_ZONES, MAILVERIFY_WEB_PORT, MAILVERIFY_CONNECT_TIMEOUT, MAILVERIFY_COMMAND_TIMEOUT,
  MAILVERIFY_DNS_TIMEOUT, MAILVERIFY_RETRY_SCHEDULE, MAILVERIFY_CONCURRENCY,
  MAILVERIFY_PER_HOST_CONCURRENCY, MAILVERIFY_PROXY, MAILVERIFY_SOURCE_ADDRESS, MAILVERIFY_PORT25_CHECK_HOSTS,
  MAILVERIFY_EGRESS_COOLDOWN, MAILVERIFY_PROVIDER_RULES, MAILVERIFY_ALLOW_PRIVATE_NETWORKS=1, MAILVERIFY_WEB_CHECK=0
                          lists are comma-separated; see the command's --help for each
  MAILVERIFY_GREYLIST_RETRY, MAILVERIFY_GREYLIST_BUDGET
                          retired, refused: MAILVERIFY_RETRY_SCHEDULE (--retry-schedule) replaced them

Everywhere
  NO_COLOR                no colours; FORCE_COLOR=1..3 forces them
  CI                      set (and not 0/false): no spinners, nothing waits for typing (as --no-input), no update notice
  NO_UPDATE_NOTIFIER, MAILVERIFY_NO_UPDATE_CHECK
                          set: no daily check of the npm registry for a newer version
  MAILVERIFY_UPDATE_REGISTRY
                          the registry that check asks (default: npm_config_registry, else npmjs.org)
`,
  csv: `How lists are read (bulk submit) and written back (bulk results):

Reading
  - CSV with , ; or tab (sniffed), with or without a header, or plain text with one address per line;
    UTF-8 with or without a BOM, LF or CRLF, quoted fields with delimiters and newlines inside.
  - The email column: --column <name|number>, else a header named email/e-mail/mail/…, else the
    column whose values look most like addresses. A column with no address at all is exit 2.
  - gzip, zip (.xlsx), UTF-16/UTF-32 and other binary files are refused (exit 2) with what to do:
    decompress, or save as "CSV UTF-8".
  - Addresses are trimmed and de-duplicated ignoring case; rows without an address or failing the
    syntax check are reported and not sent (not charged) unless --no-precheck.
  - Rows are named by their file line, as an editor shows it, with the CSV record number beside
    when blank lines or quoted newlines make them differ: "line 15220 (record 13330)".

Writing (merge-back)
  - CSV output is the original file, row for row, in its own delimiter, BOM and line ends, with
    these columns appended under their own headers (a check not established is an empty cell):
      result reason reason_code format domainExists hasMx domainReachable smtpStatus isDisposable
      isRole isBlacklisted isKnownProvider isCatchAll suggestion evidence
    reason_code is the reason as a stable code for scripts (e.g. mailbox_not_found); suggestion is
    the address with its domain corrected when the domain looks like a typo (ann@gmial.com: ann@gmail.com);
    evidence names your own bounce or delivery that decided the verdict ("bounce 2026-10-01 (postfix)").
  - Ragged rows: short rows are padded, trailing empty fields dropped; fields past the header's
    are kept after the verdict columns. Blank rows keep their place, with empty verdict cells.
  - A list changed since it was submitted: a warning names it, and rows that are in none of the
    jobs keep their place with empty verdict cells; bulk results --strict refuses instead (exit 2).
  - JSON and NDJSON hold one result per address, each with "row": the file line it came from.
  - --only filters by verdict (any case). Output files are written atomically.
`,
  evidence: `Evidence: your own mail's bounces and deliveries decide what a probe cannot (docs/evidence.md).

Import (files and folders, each read by its content, not its name):
  mailverify evidence import bounces.mbox ~/Maildir/.bounces /var/log/mail.log ses.json
  mailverify evidence import export.csv --local --source newsletter
  Read: DSNs (.eml, mbox, Maildir; also qmail, Exchange, Gmail, Yahoo bounces), Postfix, Exim and
  Sendmail logs, SES (with or without SNS), SendGrid, Mailgun and Postmark JSON, and a CSV of
  email,event,at[,status,diagnostic]. Each path prints what was read and added and every record
  skipped (file and line or message, and why); exit 0 when anything was read. The same file imported
  again adds nothing twice. Through a service: token scope evidence, batches of 10,000.

What it decides (events within --evidence-window, default 180d):
  a bounce for a missing mailbox   invalid, reason code bounced, no SMTP probe (unless asked fresh)
  a delivery                       valid, reason code delivered, where the probe proves nothing
                                   (catch-all, a provider whose 250 is no proof, 252)
  full mailbox, block, deferral    nothing (verify --explain lists them)
  A newer probe that settles the mailbox wins. Results carry evidence: {kind, at, source}.

List and delete:
  mailverify evidence list [--email <address>] [--json]    {email, kind, at, verdict, source}
  mailverify evidence delete --email <address> | --source <label> | --all

Live from an ESP (the service only; the URL printed once ends in a secret):
  mailverify evidence receivers create sendgrid --public-key-file sendgrid-key.txt
  mailverify evidence receivers create sns [--topic-arn arn:aws:sns:<region>:<account>:<topic>]
  mailverify evidence receivers list | delete <id>
  Posts not signed by SendGrid's key, or by SNS's certificate, are refused and nothing is kept.
`,
};
