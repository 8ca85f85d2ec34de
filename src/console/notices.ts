import { randomBytes } from 'node:crypto';

interface Notice {
  text: string;
  ok: boolean;
}

const kept = 200;

/**
 * What an action says after its redirect ("Replayed: duplicate"): kept here under a random id, so a
 * crafted link cannot put words of its own on a console page. Read once.
 */
export function createNotices() {
  const notices = new Map<string, Notice>();
  return {
    put(notice: Notice): string {
      const id = randomBytes(9).toString('base64url');
      notices.set(id, notice);
      if (notices.size > kept) notices.delete(notices.keys().next().value!);
      return id;
    },
    take(id: string): Notice | undefined {
      const notice = notices.get(id);
      notices.delete(id);
      return notice;
    },
  };
}

export type Notices = ReturnType<typeof createNotices>;
