import type Docker from 'dockerode';
import type { ImageInspectInfo } from 'dockerode';
import type { RegistryAuth } from '../../config/service-config.js';

/**
 * Makes sure an image is on the engine before a container is made from it: one present is used
 * as is; one missing is pulled (with the registry's credentials when configured), the pull's
 * progress followed to its end. Concurrent sandboxes of one image share one pull.
 */
export class ImagePuller {
  private readonly pulls = new Map<string, Promise<ImageInspectInfo>>();

  constructor(private readonly docker: Docker, private readonly registry: RegistryAuth | null) {}

  /** The image's inspection (its Env among it); rejects with an Error naming the image when it cannot be had. */
  ensure(image: string): Promise<ImageInspectInfo> {
    const pending = this.pulls.get(image);
    if (pending) return pending;
    const pull = this.inspectOrPull(image).finally(() => this.pulls.delete(image));
    this.pulls.set(image, pull);
    return pull;
  }

  /** The image's inspection when present locally, null when it is not (any other failure throws). */
  async local(image: string): Promise<ImageInspectInfo | null> {
    try {
      return await this.docker.getImage(image).inspect();
    } catch (error) {
      if ((error as { statusCode?: number }).statusCode === 404) return null;
      throw error;
    }
  }

  private async inspectOrPull(image: string): Promise<ImageInspectInfo> {
    const present = await this.local(image);
    if (present) return present;
    try {
      await this.pull(image);
    } catch (error) {
      throw new Error(`cannot pull sandbox image ${image}: ${oneLine(error)}`);
    }
    const pulled = await this.local(image);
    if (!pulled) throw new Error(`cannot pull sandbox image ${image}: the engine does not have it after the pull`);
    return pulled;
  }

  private async pull(image: string): Promise<void> {
    const auth = this.registry && this.registry.password !== null
      ? { authconfig: { serveraddress: this.registry.server, username: this.registry.username, password: this.registry.password } }
      : {};
    const stream = await this.docker.pull(image, auth);
    const events = await new Promise<{ error?: string; errorDetail?: { message?: string } }[]>((done, fail) => {
      this.docker.modem.followProgress(stream, (error: Error | null, output: { error?: string; errorDetail?: { message?: string } }[]) => (error ? fail(error) : done(output)));
    });
    // The engine reports a failed pull inside the stream (HTTP 200 then an `error` event).
    const failed = events.find((e) => e.error || e.errorDetail);
    if (failed) throw new Error(failed.errorDetail?.message ?? failed.error);
  }
}

function oneLine(error: unknown): string {
  const message = error instanceof Error ? error.message : String(error);
  return message.replace(/\s+/g, ' ').trim();
}
