// Cron skills end to end with real time: the scheduler fires them, the skill runs restricted to its tools, and
// the result travels through grammy to the fake Telegram server. Pause stops it at once; resume brings it back.
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { RecordedRequest } from '../fakes/openai-server.js';
import { OWNER_TG, sleep, startChannelRig, type ChannelRig } from '../helpers/channels.js';
import { skillMd, writeSkill } from './helpers.js';

/** A 6-field cron that fires once a minute, `seconds` from now (so it fires once during a test). */
const cronInSeconds = (seconds: number): string => `${new Date(Date.now() + seconds * 1000).getUTCSeconds()} * * * * *`;

const isSkillRun = (request: RecordedRequest, name: string): boolean => String(request.body.messages[0]?.content).includes(`running the skill "${name}"`);

describe('cron skills through the scheduler (fake LLM, fake Telegram, real time)', () => {
  let rig: ChannelRig | undefined;

  afterEach(async () => {
    await rig?.close();
    rig = undefined;
  });

  function answerSkillRuns(current: ChannelRig): void {
    current.llm.handle((request) => (isSkillRun(request, 'Ping') ? { content: 'Ping skill ran: all quiet.' } : { content: 'not a skill run' }));
  }

  it('fires an active cron skill once and delivers its result to the Telegram chat in deliver_to', async () => {
    rig = await startChannelRig({ which: ['telegram'] });
    const current = rig;
    answerSkillRuns(current);
    writeSkill(current.t.dir, 'ping', skillMd({ name: 'Ping', trigger: `{type: cron, cron: "${cronInSeconds(3)}"}`, tools: '[memory_read]', extra: `deliver_to: "telegram:${OWNER_TG}"` }));
    current.app.skills.scheduling.syncAll();
    const job = current.app.scheduler.get('skill-ping');
    expect(job).toMatchObject({ enabled: true, deliverTo: `telegram:${OWNER_TG}` });

    const telegram = current.telegram;
    await telegram.waitFor(() => telegram.messagesTo(OWNER_TG).find((message) => message.text === 'Ping skill ran: all quiet.'), 8000);
    const scheduler = current.app.scheduler;
    const runs = await telegram.waitFor(() => {
      const done = scheduler?.runs('skill-ping').filter((run) => run.status !== 'running') ?? [];
      return done.length === 1 && done;
    });
    expect(runs).toEqual([expect.objectContaining({ status: 'ok', trigger: 'schedule', deliveredTo: `telegram:${OWNER_TG}`, output: 'Ping skill ran: all quiet.' })]);
    // The run was the skill's: its instructions, its tools only, unattended, and recorded as a cron run of the skill.
    const skillRequests = current.llm.requests.filter((request) => isSkillRun(request, 'Ping'));
    expect(skillRequests).toHaveLength(1);
    expect(skillRequests[0]?.body.tools?.map((tool) => tool.function.name)).toEqual(['memory_read']);
    expect(String(skillRequests[0]?.body.messages[0]?.content)).toContain('It runs unattended (on its schedule)');
    expect(current.app.skills.store.runs('ping')).toEqual([expect.objectContaining({ trigger: 'cron', status: 'ok' })]);
    await sleep(1200);
    expect(telegram.messagesTo(OWNER_TG).filter((message) => message.text === 'Ping skill ran: all quiet.')).toHaveLength(1);
  });

  it('does not fire after manage_skill pause, and fires again after resume', async () => {
    rig = await startChannelRig({ which: ['telegram'] });
    const current = rig;
    answerSkillRuns(current);
    const file = path.join(current.t.dir, 'skills', 'ping', 'SKILL.md');
    writeSkill(current.t.dir, 'ping', skillMd({ name: 'Ping', trigger: `{type: cron, cron: "${cronInSeconds(3)}"}`, tools: '[]', extra: `deliver_to: "telegram:${OWNER_TG}"` }));
    const skills = current.app.skills;
    skills?.scheduling.syncAll();
    expect(current.app.scheduler.get('skill-ping')?.enabled).toBe(true);

    const paused = await skills?.manage('ping', 'pause');
    expect(paused).toMatchObject({ success: true });
    expect(current.app.scheduler.get('skill-ping')?.enabled).toBe(false);
    // Past the time it would have fired: nothing ran, nothing was delivered.
    await sleep(4500);
    expect(current.llm.requests.filter((request) => isSkillRun(request, 'Ping'))).toHaveLength(0);
    expect(current.telegram.messagesTo(OWNER_TG)).toEqual([]);
    expect(current.app.scheduler.runs('skill-ping')).toEqual([]);

    // While paused, the person moves its time (a hand edit); resume picks up the new schedule.
    writeFileSync(file, readFileSync(file, 'utf8').replace(/cron: "[^"]+"/, `cron: "${cronInSeconds(3)}"`));
    const resumed = await skills?.manage('ping', 'resume');
    expect(resumed).toMatchObject({ success: true });
    const telegram = current.telegram;
    await telegram.waitFor(() => telegram.messagesTo(OWNER_TG).find((message) => message.text === 'Ping skill ran: all quiet.'), 8000);
    expect(current.llm.requests.filter((request) => isSkillRun(request, 'Ping'))).toHaveLength(1);
  });

  it('does not run a scheduled skill that was hand-edited to draft before its time, and unschedules it', async () => {
    rig = await startChannelRig({ which: ['telegram'] });
    const current = rig;
    answerSkillRuns(current);
    const file = path.join(current.t.dir, 'skills', 'ping', 'SKILL.md');
    writeSkill(current.t.dir, 'ping', skillMd({ name: 'Ping', trigger: `{type: cron, cron: "${cronInSeconds(3)}"}`, tools: '[]', extra: `deliver_to: "telegram:${OWNER_TG}"` }));
    current.app.skills.scheduling.syncAll();
    writeFileSync(file, readFileSync(file, 'utf8').replace('status: active', 'status: draft'));
    await sleep(4500);
    expect(current.llm.requests.filter((request) => isSkillRun(request, 'Ping'))).toHaveLength(0);
    expect(current.telegram.messagesTo(OWNER_TG)).toEqual([]);
    expect(current.app.scheduler.get('skill-ping')).toBeUndefined();
  });
});
