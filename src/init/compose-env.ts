import { chownSync, existsSync, mkdirSync, statSync } from 'node:fs';
import path from 'node:path';

export interface ComposeSetup {
  /** Variables for Compose's own reading of .env (not secrets, but .env is where Compose looks). */
  env: Record<string, string>;
  /** What will be set up, to tell the person. */
  notes: string[];
  /** Run once the files are written (never before the person's yes). */
  prepare(): void;
}

/**
 * When config.yaml sits beside docker-compose.yml (a checkout deployed with Compose), the variables that file
 * reads: the uid/gid the daemon runs as (the owner of the folder, so ./data needs no chown), and with the sandbox
 * the override file, the folder's absolute path (workspaces are bind-mounted by the host's engine, which reads
 * host paths) and the Docker socket's group. Undefined when there is no docker-compose.yml there.
 */
export function composeSetup(configFile: string, sandbox: boolean): ComposeSetup | undefined {
  const dir = path.dirname(configFile);
  if (!existsSync(path.join(dir, 'docker-compose.yml'))) return undefined;
  const notes: string[] = [];
  let prepare = (): void => undefined;
  const owner = statSync(dir);
  let uid = owner.uid;
  let gid = owner.gid;
  if (uid === 0) {
    // Never run the daemon as root in its container: uid 1000 (the image's own user) owns ./data instead.
    uid = 1000;
    gid = 1000;
    const data = path.join(dir, 'data');
    if (process.getuid?.() === 0) {
      prepare = () => {
        mkdirSync(data, { recursive: true, mode: 0o700 });
        chownSync(data, 1000, 1000);
      };
      notes.push(`${data} is handed to uid 1000 (chown 1000:1000, mode 0700): the uid the container runs as, and the only one that can read it`);
    } else notes.push(`run: sudo chown -R 1000:1000 ${data}`);
  }
  const env: Record<string, string> = { FAMILIAR_UID: String(uid), FAMILIAR_GID: String(gid) };
  if (sandbox) {
    env.COMPOSE_FILE = 'docker-compose.yml:docker-compose.sandbox.yml';
    env.FAMILIAR_HOST_DIR = path.resolve(dir);
    try {
      env.DOCKER_GID = String(statSync('/var/run/docker.sock').gid);
    } catch {
      notes.push('no /var/run/docker.sock here: set DOCKER_GID in .env to the docker group of the machine that runs Compose');
    }
    notes.push('docker compose up -d --build now also builds the sandbox image and mounts the Docker socket (docker-compose.sandbox.yml)');
  }
  return { env, notes, prepare };
}
