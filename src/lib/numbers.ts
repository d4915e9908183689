/** Numbers as the person reads them, the same in the chat, the terminal and the console. */

/** A count with thousands separators: "12,345". */
export function formatNumber(value: number): string {
  return Math.round(value).toLocaleString('en-US');
}

/** Dollars: cents for large sums, four places for the small costs of a day's tokens. */
export function formatCost(usd: number): string {
  return usd >= 1 ? `$${usd.toFixed(2)}` : `$${usd.toFixed(4)}`;
}
