import type Docker from 'dockerode';

type DockerConstructor = new (options?: Docker.DockerOptions) => Docker;

/**
 * Connection options for `tools.sandbox.docker_host` (`unix:///var/run/docker.sock`, `tcp://host:2375`,
 * `http://…`, `https://…`, `ssh://user@host`). Without it dockerode reads DOCKER_HOST, else the local socket.
 */
export function dockerOptions(dockerHost: string | undefined): Docker.DockerOptions | undefined {
  if (!dockerHost) return undefined;
  if (dockerHost.startsWith('unix://')) {
    // `host: undefined` overrides a DOCKER_HOST=tcp://… that dockerode would otherwise merge in.
    return { socketPath: dockerHost.slice('unix://'.length) || '/var/run/docker.sock', host: undefined } as unknown as Docker.DockerOptions;
  }
  const url = new URL(dockerHost.includes('//') ? dockerHost : `tcp://${dockerHost}`);
  const protocol = url.protocol === 'https:' ? 'https' : url.protocol === 'ssh:' ? 'ssh' : 'http';
  const defaultPort = protocol === 'https' ? '2376' : protocol === 'ssh' ? '22' : '2375';
  return {
    host: url.hostname,
    port: url.port || defaultPort,
    protocol,
    ...(url.username ? { username: decodeURIComponent(url.username) } : {}),
  };
}

export function createDockerClient(DockerClass: DockerConstructor, dockerHost: string | undefined): Docker {
  const options = dockerOptions(dockerHost);
  return options ? new DockerClass(options) : new DockerClass();
}

/** Where a client connects, for log lines and doctor output. */
export function describeDocker(docker: Docker): string {
  const modem = docker.modem as { socketPath?: unknown; host?: string; port?: string | number; protocol?: string };
  if (modem.host) return `${modem.protocol ?? 'http'}://${modem.host}${modem.port ? `:${modem.port}` : ''}`;
  return typeof modem.socketPath === 'string' ? `unix://${modem.socketPath}` : 'the local Docker socket';
}
