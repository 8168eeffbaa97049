import type { EvidenceReceiver, ReceiverKind } from '../receiver-model.js';

/** An evidence receiver as both schemas hold it, and its mapping to the Store's record. */
export interface ReceiverRow {
  id: string;
  user_id: number;
  kind: string;
  public_key: string | null;
  topic_arn: string | null;
  created_at: string;
  confirmed_at: string | null;
  last_event_at: string | null;
}

export const toReceiver = (row: ReceiverRow): EvidenceReceiver => ({
  id: row.id,
  userId: row.user_id,
  kind: row.kind as ReceiverKind,
  publicKey: row.public_key,
  topicArn: row.topic_arn,
  createdAt: row.created_at,
  confirmedAt: row.confirmed_at,
  lastEventAt: row.last_event_at,
});
