import { it } from 'vitest';
import { startMailServer, descendantPids, imapClient } from './mail-server.js';
import fs from 'node:fs';
it('prof', async () => {
  for (let i = 0; i < 4; i++) {
    let t = Date.now();
    const s = await startMailServer();
    const st = Date.now() - t;
    const c = imapClient(s, 'me'); await c.connect();
    const masters = [Number(fs.readFileSync(s.dir + '/dovecot-run/master.pid', 'utf8')), Number(fs.readFileSync(s.dir + '/postfix-queue/pid/master.pid', 'utf8'))];
    const pids = [...masters, ...descendantPids(masters)];
    const names = new Map(pids.map((p) => [p, fs.readFileSync(`/proc/${p}/comm`, 'utf8').trim()]));
    t = Date.now();
    const sp = s.stop();
    await new Promise((r) => setTimeout(r, 300));
    const alive = pids.filter((p) => { try { return !/\) [ZX] /.test(fs.readFileSync(`/proc/${p}/stat`, 'utf8')); } catch { return false; } });
    await sp;
    console.log('start', st, 'stop', Date.now() - t, 'alive@300', alive.map((p) => names.get(p)));
    c.close();
  }
}, 60000);
