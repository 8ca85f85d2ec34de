/**
 * `pixhook dev`'s first lines: where the emulator is and which secret it signs with. A secret generated
 * for the run is dev-only and printed as `PIXHOOK_SECRET=…`; one you gave (`--secret` or `PIXHOOK_SECRET`)
 * is never printed, only named. Forwarding, they say how your app gets the same secret: an app that
 * verifies with another answers every delivery 401.
 */
export function devSecretLines(input: {
  emulator: string;
  /** The secret generated for this run; undefined when one was given. */
  generated: string | undefined;
  from: '--secret' | 'PIXHOOK_SECRET';
  forwarding: boolean;
}): string[] {
  if (input.generated !== undefined)
    return [
      `pixhook dev: emulator at ${input.emulator}, webhooks signed with the secret below (generated for this run, dev-only)`,
      `PIXHOOK_SECRET=${input.generated}`,
      ...(input.forwarding
        ? [
            "pixhook dev: your app must verify with this secret: start it with PIXHOOK_SECRET set to it, or restart pixhook dev with --secret <your app's webhook secret>",
          ]
        : []),
    ];
  return [
    `pixhook dev: emulator at ${input.emulator}, webhooks signed with the secret from ${input.from} (not printed)`,
    ...(input.forwarding ? [`pixhook dev: your app must verify with the same secret (${input.from})`] : []),
  ];
}
