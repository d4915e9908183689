import { errorMessage } from '../errors.js';

export interface DockerCheck {
  answers: boolean;
  /** Whether `image` is in the engine (only when it answers). */
  image: boolean;
  detail: string;
}

/** Whether a Docker engine answers here (DOCKER_HOST or the local socket) and has the sandbox image. Never throws. */
export async function checkDocker(image: string, timeoutMs = 2000): Promise<DockerCheck> {
  try {
    const { default: Docker } = await import('dockerode');
    const docker = new Docker({ timeout: timeoutMs });
    await docker.ping();
    try {
      await docker.getImage(image).inspect();
      return { answers: true, image: true, detail: `Docker answers and has ${image}` };
    } catch {
      return { answers: true, image: false, detail: `Docker answers; the image ${image} is not built yet` };
    }
  } catch (error) {
    return { answers: false, image: false, detail: `no Docker engine answers (${errorMessage(error)})` };
  }
}
