// @joplin/turndown-plugin-gfm ships no types; this is the part of its API used here.
declare module '@joplin/turndown-plugin-gfm' {
  import type TurndownService from 'turndown';
  export function gfm(service: TurndownService): void;
}
