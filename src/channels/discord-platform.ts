import { MessageFlags, type Interaction } from 'discord.js';
import { fitText } from './approval-pending.js';
import { createDiscordPrompter } from './discord-approvals.js';
import { DISCORD_LIMIT, DiscordChannel, type DiscordConfig } from './discord.js';
import { platformOf, type ButtonPressDeps, type ChatPlatform, type PlatformContext } from './platform.js';

/** Discord as a platform of the table: the channel, its approval buttons and its reply buttons. */
export function createDiscordPlatform(context: PlatformContext): ChatPlatform {
  const { log } = context;
  const channel = new DiscordChannel({ router: context.router, config: context.config.channels.discord as DiscordConfig, log });
  return platformOf(channel, {
    prompter: (pending) => createDiscordPrompter({ channel, pending, log }),
    listenForButtons: (deps) => {
      channel.onInteraction((interaction) => {
        onPress(interaction, deps).catch((error: unknown) => deps.log.error({ err: error }, 'discord: reply button handling failed'));
      });
    },
    // A DM channel's id is not the user's: Discord opens (or returns) it (POST /users/@me/channels).
    directChat: async (userId) => {
      try {
        return channel.client.isReady() ? (await channel.client.users.createDM(userId)).id : undefined;
      } catch (error) {
        log.warn({ err: error, userId }, 'discord: could not open a direct chat');
        return undefined;
      }
    },
  });
}

/** A press of a delivered reply's button (see telegram-platform.ts); approval buttons are discord-approvals.ts's. */
async function onPress(interaction: Interaction, deps: ButtonPressDeps): Promise<void> {
  if (!interaction.isButton()) return;
  const userId = interaction.user.id;
  const answer = await deps.press({ channel: 'discord', chatId: interaction.channelId, userId, data: interaction.customId, allowed: deps.isAllowed('discord', userId) });
  if (!answer) return; // another part's button
  if (answer.outcome === undefined) {
    await interaction.reply({ content: answer.notice, flags: MessageFlags.Ephemeral });
    return;
  }
  await interaction.update({ content: fitText(`${interaction.message.content}\n\n${answer.outcome}`, DISCORD_LIMIT), components: [] });
}
