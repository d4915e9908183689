import { readFileSync } from 'node:fs';
import path from 'node:path';
import { parse } from 'yaml';
import { describe, expect, it } from 'vitest';
import { PACKAGE_ROOT } from '../../src/config/folders.js';

interface Service { volumes?: string[]; group_add?: string[]; environment?: Record<string, string>; user?: string; depends_on?: Record<string, unknown>; build?: { context?: string }; image?: string }
const read = (file: string) => parse(readFileSync(path.join(PACKAGE_ROOT, file), 'utf8')) as { services: Record<string, Service> };

// scripts/verify-compose.sh runs these files for real (minutes, needs the engine); this checks their shape.
describe('the Compose files', () => {
  it('docker-compose.yml mounts no Docker socket and no tracked folder; data is the one writable mount', () => {
    const familiar = read('docker-compose.yml').services.familiar;
    const volumes = familiar?.volumes ?? [];
    expect(volumes.some((volume) => volume.includes('docker.sock'))).toBe(false);
    expect(familiar?.group_add).toBeUndefined();
    expect(volumes).toEqual(['./config.yaml:/app/config.yaml:ro', './data:/app/data']);
    expect(familiar?.user).toBe('${FAMILIAR_UID:-1000}:${FAMILIAR_GID:-1000}');
  });

  it('docker-compose.sandbox.yml adds the socket, builds the sandbox image, and gives data its host path', () => {
    const services = read('docker-compose.sandbox.yml').services;
    const familiar = services.familiar;
    expect(familiar?.volumes).toEqual(['/var/run/docker.sock:/var/run/docker.sock', './data:${FAMILIAR_HOST_DIR}/data']);
    expect(familiar?.environment?.FAMILIAR_DATA_DIR).toMatch(/^\$\{FAMILIAR_HOST_DIR:\?.*\}\/data$/);
    expect(familiar?.depends_on).toEqual({ 'sandbox-image': { condition: 'service_completed_successfully' } });
    expect(services['sandbox-image']).toMatchObject({ build: { context: 'docker/sandbox' }, image: 'familiar-sandbox:latest' });
    // What makes the host path reach the daemon: the example's data_dir reads FAMILIAR_DATA_DIR.
    expect(readFileSync(path.join(PACKAGE_ROOT, 'config.example.yaml'), 'utf8')).toMatch(/^data_dir: \$\{FAMILIAR_DATA_DIR:-\.\/data\}/m);
  });
});
