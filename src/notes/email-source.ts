/** One recent message, parsed, as the email scan reads it. */
export interface MailItem {
  uid: number;
  folder: string;
  messageId: string | undefined;
  from: string;
  fromAddress: string | undefined;
  subject: string;
  date: Date | undefined;
  text: string;
}

/** Recent mail of the configured account, read without marking anything seen (made by the email part). */
export interface MailSource {
  account: string;
  recent(options: { days: number; limit: number; now: number }): Promise<MailItem[]>;
}
