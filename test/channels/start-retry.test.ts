// A chat server that cannot be reached when the daemon starts (the network not up yet at boot, a homeserver
// restarting): the platform is listed as failed and retrying, tries again in the background (src/channels/start-retry.ts),
// and answers once the server does. Each fake plays the outage as the proxy in front of a server that is down does
// (502 Bad Gateway); the real client libraries talk to it. The first wait is 100 ms here (5 s by default).
import { afterEach, describe, expect, it } from 'vitest';
import { ChannelInbox } from '../../src/channels/inbox.js';
import { startDiscordServer, type FakeDiscord } from '../fakes/discord-server.js';
import { startMatrixServer, type FakeMatrix } from '../fakes/matrix-server.js';
import { startOpenAiServer, type FakeOpenAI } from '../fakes/openai-server.js';
import { startSignalCliServer, type FakeSignalCli } from '../fakes/signal-cli-server.js';
import { startSlackServer, type FakeSlack } from '../fakes/slack-server.js';
import { makeTestApp, type TestApp } from '../helpers/app.js';
import { OWNER_DC, sleep, userTexts } from '../helpers/channels.js';
import { waitUntil } from '../helpers/daemon.js';
import { OWNER as OWNER_SG } from '../helpers/signal.js';
import { OWNER_SL } from '../helpers/slack.js';

const RETRY_MS = 100;
const OWNER_MX = '@owner:example.org';

/** One platform's fake, as these tests drive it. */
interface Server {
  /** `channels:` for the daemon; `rejected`: with credentials the server refuses. */
  channels(rejected?: boolean): Record<string, unknown>;
  outage(on: boolean): void;
  badGateways(): number;
  /** Every request the server answered or refused. */
  requests(): number;
  /** The owner writes `text`; resolves with the first reply's text. */
  ask(text: string): Promise<string>;
  close(): Promise<void>;
}

const PLATFORMS: Record<string, () => Promise<Server>> = {
  discord: async () => {
    const discord: FakeDiscord = await startDiscordServer({ heartbeatIntervalMs: 1000 });
    return {
      channels: (rejected) => ({ discord: { token: rejected ? 'wrong-token' : discord.token, api_url: discord.restApi, allowed_users: [OWNER_DC] } }),
      outage: (on) => discord.outage(on),
      badGateways: () => discord.badGateways,
      requests: () => discord.requests.length + discord.badGateways + discord.gateway.connections,
      ask: async (text) => {
        const { channelId } = discord.sendUserMessage({ userId: OWNER_DC, content: text, dm: true });
        return (await discord.waitFor(() => discord.messagesIn(channelId)[0])).content;
      },
      close: () => discord.close(),
    };
  },
  slack: async () => {
    const slack: FakeSlack = await startSlackServer();
    return {
      channels: (rejected) => ({ slack: { app_token: slack.appToken, bot_token: rejected ? 'xoxb-wrong' : slack.botToken, api_url: slack.apiUrl, allowed_users: [OWNER_SL] } }),
      outage: (on) => slack.outage(on),
      badGateways: () => slack.badGateways,
      requests: () => slack.calls.length + slack.badGateways + slack.socket.connections,
      ask: async (text) => {
        slack.sendUserMessage({ user: OWNER_SL, channel: 'D0RETRY01', text });
        return (await slack.waitFor(() => slack.messagesIn('D0RETRY01')[0])).text;
      },
      close: () => slack.close(),
    };
  },
  matrix: async () => {
    const matrix: FakeMatrix = await startMatrixServer();
    const room = matrix.createRoom({ members: [OWNER_MX] });
    return {
      channels: (rejected) => ({ matrix: { homeserver_url: matrix.baseUrl, access_token: rejected ? 'syt_wrong' : matrix.accessToken, allowed_users: [OWNER_MX] } }),
      outage: (on) => matrix.outage(on),
      badGateways: () => matrix.badGateways,
      requests: () => matrix.requests.length + matrix.badGateways,
      ask: async (text) => {
        matrix.say(room, OWNER_MX, text);
        return String((await matrix.waitFor(() => matrix.messagesIn(room)[0])).shown['body']);
      },
      close: () => matrix.close(),
    };
  },
  signal: async () => {
    const signal: FakeSignalCli = await startSignalCliServer();
    const owner = OWNER_SG.number ?? '';
    return {
      channels: (rejected) => ({ signal: { url: signal.url, account: rejected ? '+4915199999999' : signal.account, allowed_users: [owner] } }),
      outage: (on) => signal.outage(on),
      badGateways: () => signal.badGateways,
      requests: () => signal.calls.length + signal.badGateways + signal.connections,
      ask: async (text) => {
        signal.sendUserMessage({ from: OWNER_SG, text });
        return (await signal.waitFor(() => signal.sentTo({ recipient: owner })[0])).message;
      },
      close: () => signal.close(),
    };
  },
};

describe('a chat server that cannot be reached at start', () => {
  let llm: FakeOpenAI;
  let server: Server | undefined;
  let closeFake: (() => Promise<void>) | undefined;
  let t: TestApp | undefined;

  afterEach(async () => {
    await t?.app.close(500);
    await Promise.all([llm.close(), server?.close(), closeFake?.()]);
    t = undefined;
    server = undefined;
    closeFake = undefined;
  });

  /** The daemon with the platform configured, started while its server is down. */
  async function startDuringOutage(name: string, rejected = false): Promise<TestApp> {
    llm = await startOpenAiServer();
    const make = PLATFORMS[name];
    if (!make) throw new Error(`no platform ${name}`);
    server = await make();
    server.outage(true);
    t = await makeTestApp(llm, { channels: server.channels(rejected) }, undefined, { channelRetryMs: RETRY_MS });
    await t.app.start();
    return t;
  }

  const logged = (app: TestApp, text: string): string[] => app.logs.filter((line) => line.includes(text));

  for (const name of Object.keys(PLATFORMS)) {
    describe(name, () => {
      it('is listed as failed and retrying, tries again with one debug line a try, and answers once the server is back', async () => {
        const app = await startDuringOutage(name);
        expect(app.app.failedParts()).toEqual([name]);
        expect(app.app.retryingParts()).toEqual([name]);
        const failed = logged(app, `"msg":"${name} failed to start"`);
        expect(failed).toHaveLength(1);
        expect(failed[0]).toContain(`"code":"${name.toUpperCase()}_UNREACHABLE"`);
        expect(failed[0]).toContain('it keeps trying in the background');
        await waitUntil(() => logged(app, `"msg":"${name}: still cannot reach the server"`).length >= 2, 10_000, 'two tries in the background');
        expect(logged(app, `"msg":"${name}: still cannot reach the server"`).every((line) => line.includes('"level":20'))).toBe(true);

        server?.outage(false);
        await waitUntil(() => app.app.failedParts().length === 0, 10_000, `${name} to start in the background`);
        expect(app.app.retryingParts()).toEqual([]);
        expect(logged(app, `"msg":"${name} started (it had failed at first)"`)).toHaveLength(1);
        expect(await server?.ask('are you there?')).toBe('ok');
      });

      it('stops trying when the server, back, rejects the credentials', async () => {
        const app = await startDuringOutage(name, true);
        expect(app.app.retryingParts()).toEqual([name]);
        server?.outage(false);
        await waitUntil(() => app.app.retryingParts().length === 0, 10_000, 'the tries to end');
        expect(app.app.failedParts()).toEqual([name]);
        const gaveUp = logged(app, `"msg":"${name}: no more tries to connect (fix what the error says and restart)"`);
        expect(gaveUp).toHaveLength(1);
        expect(gaveUp[0]).toContain('"level":50');
        const requests = server?.requests();
        await sleep(RETRY_MS * 8);
        expect(server?.requests()).toBe(requests);
      });

      it('stops trying at once when the daemon stops, and leaves nothing running', async () => {
        const app = await startDuringOutage(name);
        await waitUntil(() => logged(app, `"msg":"${name}: still cannot reach the server"`).length >= 1, 10_000, 'a try in the background');
        await app.app.close(500);
        t = undefined;
        expect(logged(app, 'did not end when stopped')).toEqual([]);
        const requests = server?.requests();
        // Back now: a try still going would reach it.
        server?.outage(false);
        await sleep(RETRY_MS * 8);
        expect(server?.requests()).toBe(requests);
        expect(logged(app, 'started (it had failed at first)')).toEqual([]);
      });
    });
  }

  it('signal: answers the messages the last run left once the server is back, once', async () => {
    llm = await startOpenAiServer();
    const signal = await startSignalCliServer();
    closeFake = () => signal.close();
    const owner = OWNER_SG.number ?? '';
    signal.outage(true);
    const app = await makeTestApp(llm, { channels: { signal: { url: signal.url, account: signal.account, allowed_users: [owner] } } }, undefined, { channelRetryMs: RETRY_MS });
    t = app;
    // As a killed daemon leaves it: claimed, never answered.
    new ChannelInbox(app.app.db).claim('signal', `${owner}/${OWNER_SG.uuid}:1700000000000`, owner, Date.now() - 1000, {
      userId: owner, userName: 'Owner', text: 'left unanswered', isDirect: true, attachments: [],
    });
    await app.app.start();
    await waitUntil(() => logged(app, '"msg":"signal: still cannot reach the server"').length >= 1, 10_000, 'a try in the background');
    expect(llm.requests).toEqual([]);
    signal.outage(false);
    await signal.waitFor(() => signal.sentTo({ recipient: owner })[0]);
    await sleep(RETRY_MS * 4);
    expect(userTexts(llm)).toEqual(['left unanswered']);
    expect(signal.sentTo({ recipient: owner }).map((sent) => sent.message)).toEqual(['ok']);
  });

  it('matrix: a stop while a try waits for the first sync ends the try at once, and its client syncs no more', async () => {
    llm = await startOpenAiServer();
    const matrix = await startMatrixServer();
    closeFake = () => matrix.close();
    matrix.outage(true);
    const app = await makeTestApp(llm, { channels: { matrix: { homeserver_url: matrix.baseUrl, access_token: matrix.accessToken, allowed_users: [OWNER_MX] } } }, undefined, { channelRetryMs: RETRY_MS });
    t = app;
    await app.app.start();
    // Back, but its /sync drops every connection: the next try passes whoami and waits for a first sync (30 s at most).
    matrix.dropConnection(60_000);
    matrix.outage(false);
    await matrix.waitFor(() => matrix.requests.some((request) => request.path.endsWith('/sync')), 10_000);
    await app.app.close(500);
    t = undefined;
    const requests = matrix.requests.length;
    await sleep(1000);
    expect(matrix.requests.slice(requests).map((request) => request.path)).toEqual([]);
  });

  it('discord: a login tried again after one that failed runs on a new client, which delivers and closes its gateway connection', async () => {
    llm = await startOpenAiServer();
    const discord = await startDiscordServer({ heartbeatIntervalMs: 1000 });
    closeFake = () => discord.close();
    // The login's request for the gateway and discord.js's three retries of it fail; the token check before them does not.
    for (let index = 0; index < 4; index += 1) discord.failNext('GET /gateway/bot', 502);
    const app = await makeTestApp(llm, { channels: { discord: { token: discord.token, api_url: discord.restApi, allowed_users: [OWNER_DC] } } }, undefined, { channelRetryMs: RETRY_MS });
    t = app;
    await app.app.start();
    expect(app.app.retryingParts()).toEqual(['discord']);
    await waitUntil(() => app.app.failedParts().length === 0, 10_000, 'discord to start in the background');
    const channelId = discord.dmChannelId(OWNER_DC);
    await app.app.channels.deliver(`discord:${channelId}`, { text: 'delivered' });
    expect(discord.messagesIn(channelId).map((message) => message.content)).toEqual(['delivered']);
    expect(discord.gateway.open).toBe(1);
    await app.app.close(500);
    t = undefined;
    await discord.waitFor(() => discord.gateway.open === 0, 2000);
  });
});
