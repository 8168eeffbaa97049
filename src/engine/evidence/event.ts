export type EvidenceKind = 'bounce' | 'delivery' | 'complaint' | 'deferral';
export interface EvidenceEvent {
  email: string;
  kind: EvidenceKind;
  at: string;
  status?: string;
  diagnostic?: string;
  source: string;
}
export interface EvidenceSkip {
  file: string;
  where: string;
  why: string;
}
export type EvidenceRead = { event: EvidenceEvent } | { skip: EvidenceSkip };
