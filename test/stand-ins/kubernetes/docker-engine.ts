import Docker from 'dockerode';

/** Whether the local Docker engine answers (tests that need real containers skip with the reason). */
export async function dockerEngine(): Promise<{ ok: true } | { ok: false; reason: string }> {
  try {
    await Promise.race([new Docker().ping(), new Promise((_, reject) => setTimeout(() => reject(new Error('no answer within 3 s')), 3000))]);
    return { ok: true };
  } catch (error) {
    return { ok: false, reason: `no Docker engine reachable (${(error as Error).message})` };
  }
}
