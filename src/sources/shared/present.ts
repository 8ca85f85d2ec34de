/**
 * True when a credential (a header, a URL secret) holds more than whitespace. Absent, empty or only
 * whitespace, no credential was given: every source answers `signature_missing`, never `signature_mismatch`,
 * as the gateway's verifier does.
 */
export function isPresent(value: string | undefined): value is string {
  return value !== undefined && value.trim() !== '';
}
