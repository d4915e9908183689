// @ts-check
// electricity_meter: reads the electricity meter — a Tasmota energy monitor (a smart plug or a meter reader running
// Tasmota) on the local network — and says what the house draws now and used today, yesterday and in total.
//
// Install: copy this file into your tools folder (tools_dir, default data/tools), then in config.yaml:
//   tools:
//     settings:
//       electricity_meter: { url: http://192.168.1.50 }   # the device's address
// Try it:   familiar tools test electricity_meter '{}'
//
// It runs inside the daemon with the daemon's full rights, like every tool module.
import { defineTool, fail } from 'familiar';

export default defineTool({
  schema: {
    name: 'electricity_meter',
    description:
      'Reads the home electricity meter: the power drawn now (W) and the energy used today, yesterday and in total (kWh). ' +
      'Use it when the person asks about electricity, power or energy use.',
    parameters: { type: 'object', properties: {}, additionalProperties: false },
  },
  // A call fetches one fixed address on the local network and sends nothing the model chose: no effects to declare.
  effects: [],
  timeoutMs: 10_000,
  /** @param {Record<string, never>} _params  @param {import('familiar').CustomToolContext} ctx */
  async execute(_params, ctx) {
    const base = ctx.settings.url;
    if (typeof base !== 'string' || base === '') {
      return fail('The meter address is not configured (tools.settings.electricity_meter.url in config.yaml); tell the person.');
    }
    // Tasmota's "Status 10": the sensors, ENERGY among them.
    const url = new URL('/cm', base);
    url.searchParams.set('cmnd', 'Status 10');
    let response;
    try {
      response = await fetch(url, { signal: ctx.signal });
    } catch (error) {
      return fail(`The meter at ${url.origin} does not answer (${error instanceof Error ? error.message : String(error)}); it may be off or the address changed.`);
    }
    if (!response.ok) return fail(`The meter at ${url.origin} answered HTTP ${response.status}.`);
    /** @type {any} */
    const status = await response.json().catch(() => undefined);
    const energy = status?.StatusSNS?.ENERGY;
    if (!energy || typeof energy.Total !== 'number') return fail(`The device at ${url.origin} sent no ENERGY readings; is it an energy monitor?`);
    ctx.emit({ type: 'meter:reading', powerW: energy.Power, totalKwh: energy.Total });
    const at = typeof status.StatusSNS.Time === 'string' ? ` (${status.StatusSNS.Time})` : '';
    return `Meter${at}: drawing ${energy.Power} W now; today ${energy.Today} kWh, yesterday ${energy.Yesterday} kWh, total ${energy.Total} kWh.`;
  },
});
