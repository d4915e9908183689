import { AppError, errorMessage } from '../../errors.js';
import type { MailEndpoint } from './settings.js';

/**
 * A mail server problem the operator must fix (login, reachability, TLS). Its message names the config key to
 * change; the email tool shows it to the model as a failed result so the person hears about it.
 */
export class EmailError extends AppError {}

const TLS_CODES = new Set([
  'DEPTH_ZERO_SELF_SIGNED_CERT', 'SELF_SIGNED_CERT_IN_CHAIN', 'UNABLE_TO_VERIFY_LEAF_SIGNATURE', 'UNABLE_TO_GET_ISSUER_CERT',
  'UNABLE_TO_GET_ISSUER_CERT_LOCALLY', 'CERT_HAS_EXPIRED', 'CERT_NOT_YET_VALID', 'ERR_TLS_CERT_ALTNAME_INVALID', 'CERT_UNTRUSTED',
  'ERR_SSL_WRONG_VERSION_NUMBER', 'EPROTO',
]);
const UNREACHABLE_CODES = new Set(['ECONNREFUSED', 'ENOTFOUND', 'EAI_AGAIN', 'EHOSTUNREACH', 'ENETUNREACH', 'ETIMEDOUT', 'CONNECT_TIMEOUT', 'GREETING_TIMEOUT', 'ECONNECTION']);

interface MailLibraryError {
  code?: unknown;
  /** nodemailer keeps the socket's own code (a TLS verification error) here under ESOCKET. */
  originalCode?: unknown;
  authenticationFailed?: unknown;
  tlsFailed?: unknown;
  responseCode?: unknown;
  serverResponseCode?: unknown;
  responseText?: unknown;
  response?: unknown;
  cause?: unknown;
}

/** Maps an imapflow or nodemailer failure to an EmailError whose message says what to change. Contract: never throws. */
export function toEmailError(protocol: 'imap' | 'smtp', endpoint: MailEndpoint, error: unknown): EmailError {
  if (error instanceof EmailError) return error;
  const details = (typeof error === 'object' && error !== null ? error : {}) as MailLibraryError;
  const code = typeof details.code === 'string' ? details.code : undefined;
  const causeCode = typeof (details.cause as MailLibraryError | undefined)?.code === 'string'
    ? String((details.cause as MailLibraryError).code)
    : typeof details.originalCode === 'string' ? details.originalCode : undefined;
  const where = `${protocol.toUpperCase()} server ${endpoint.host}:${endpoint.port}`;
  const key = `tools.email.${protocol}`;
  const tls = endpoint.secure ? 'implicit TLS' : 'STARTTLS';
  const options = { cause: error };

  if (details.authenticationFailed === true || code === 'EAUTH' || details.serverResponseCode === 'AUTHENTICATIONFAILED') {
    return new EmailError('EMAIL_AUTH_FAILED', `the ${where} refused the login for ${endpoint.user}: check ${key}.user and ${key}.password (an app password may be needed)`, options);
  }
  const tlsCode = [code, causeCode].find((candidate) => candidate !== undefined && TLS_CODES.has(candidate));
  if (tlsCode !== undefined) {
    return new EmailError('EMAIL_TLS_FAILED', `the ${where} certificate is not trusted or TLS failed (${tlsCode}): for a self-hosted server with its own CA set tools.email.ca or tools.email.ca_file; check ${key}.host matches the certificate`, options);
  }
  if (details.tlsFailed === true || code === 'ETLS' || /STARTTLS/i.test(errorMessage(error))) {
    return new EmailError('EMAIL_TLS_FAILED', `the ${where} did not complete ${tls} (${errorMessage(error)}); Familiar never logs in without TLS: set ${key}.secure (true for implicit TLS, false for STARTTLS) and ${key}.port to what the server offers`, options);
  }
  const unreachable = [code, causeCode].find((candidate) => candidate !== undefined && UNREACHABLE_CODES.has(candidate));
  if (unreachable !== undefined) {
    return new EmailError('EMAIL_UNREACHABLE', `cannot reach the ${where} (${unreachable}): check ${key}.host and ${key}.port and that the server is up`, options);
  }
  return new EmailError(protocol === 'imap' ? 'EMAIL_IMAP_FAILED' : 'EMAIL_SMTP_FAILED', `the ${where} failed: ${serverText(details) ?? errorMessage(error)}`, options);
}

function serverText(details: MailLibraryError): string | undefined {
  if (typeof details.responseText === 'string' && details.responseText !== '') return details.responseText;
  if (typeof details.response === 'string' && details.response !== '') return details.response;
  return undefined;
}
