/** One recipient's block of an RFC 3464 delivery status notification. */
export interface DsnRecipient {
  finalRecipient?: string;
  originalRecipient?: string;
  action?: string;
  status?: string;
  diagnostic?: string;
  lastAttempt?: string;
}

const FIELDS: Record<string, keyof DsnRecipient> = {
  'final-recipient': 'finalRecipient',
  'original-recipient': 'originalRecipient',
  'x-actual-recipient': 'finalRecipient',
  action: 'action',
  status: 'status',
  'diagnostic-code': 'diagnostic',
  'last-attempt-date': 'lastAttempt',
};

/** Where DSN fields start when a broken bounce carries them as plain text. */
export const DSN_FIELD = /^(final|original)-recipient[ \t]*:/im;

/**
 * The per-recipient blocks of delivery-status text. A block also ends where a recipient field comes
 * again, not at blank lines only: flattened or re-wrapped DSNs lose their blank lines.
 */
export function dsnRecipients(text: string): DsnRecipient[] {
  const records: DsnRecipient[] = [];
  let current: DsnRecipient = {};
  const close = () => {
    if (current.finalRecipient !== undefined || current.originalRecipient !== undefined) records.push(current);
    current = {};
  };
  for (const { name, value } of orderedFields(text)) {
    if (name === '') {
      close();
      continue;
    }
    const field = FIELDS[name];
    if (field === undefined) continue;
    const recipientField = field === 'finalRecipient' || field === 'originalRecipient';
    const blockGoesOn = current.action === undefined && current.status === undefined && current.diagnostic === undefined;
    if (recipientField && name !== 'x-actual-recipient' && (current[field] !== undefined || !blockGoesOn)) close();
    if (current[field] === undefined) current[field] = value;
  }
  close();
  return records;
}

/** Fields in order, continuation lines unfolded; a blank line is a field named "". */
function* orderedFields(text: string): Generator<{ name: string; value: string }> {
  let last: { name: string; value: string } | null = null;
  for (const line of text.split('\n')) {
    if (/^[ \t]+\S/.test(line) && last !== null) {
      last.value += ` ${line.trim()}`;
      continue;
    }
    if (last !== null) yield { name: last.name, value: last.value.trim() };
    last = null;
    if (line.trim() === '') {
      yield { name: '', value: '' };
      continue;
    }
    const match = /^([\w-]+)[ \t]*:[ \t]*(.*)$/.exec(line.trim());
    if (match) last = { name: match[1]!.toLowerCase(), value: match[2] ?? '' };
  }
  if (last !== null) yield { name: last.name, value: last.value.trim() };
}
