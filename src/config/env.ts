import { config as loadDotenv } from 'dotenv';

/** Every FORMGATE_* variable Formgate reads, as raw strings (undefined when unset). */
export interface RawEnv {
  databaseUrl?: string;
  dataDir?: string;
  host?: string;
  port?: string;
  submitPort?: string;
  publicUrl?: string;
  submitUrl?: string;
  secret?: string;
  smtpUrl?: string;
  mailFrom?: string;
  redisUrl?: string;
  redisPrefix?: string;
  rateLimitSubmit?: string;
  rateLimitApi?: string;
  rateLimitLoginAccount?: string;
  rateLimitLoginAddress?: string;
  rateLimitSearch?: string;
  rateLimitExports?: string;
  trustProxy?: string;
  allowPrivateWebhooks?: string;
  webhookAllow?: string;
  logLevel?: string;
  spamRetentionDays?: string;
  deliveryRetentionDays?: string;
  auditRetentionDays?: string;
  files?: string;
  botpoisonVerifyUrl?: string;
  recaptchaVerifyUrl?: string;
  hcaptchaVerifyUrl?: string;
  turnstileVerifyUrl?: string;
  slackApiUrl?: string;
  telegramApiUrl?: string;
  airtableApiUrl?: string;
  notionApiUrl?: string;
  googleSheetsApiUrl?: string;
  googleOauthTokenUrl?: string;
  brevoApiUrl?: string;
  mailchimpApiUrl?: string;
  spamdUrl?: string;
  spamJudgesBudget?: string;
  akismetUrl?: string;
  signup?: string;
  defaultPlan?: string;
  sessionIdleTimeout?: string;
  sessionMaxAge?: string;
  deliveryLease?: string;
  deliveries?: string;
  confirmRecipients?: string;
  metrics?: string;
  secretPrevious?: string;
  startupWait?: string;
  logFormat?: string;
  drainWindow?: string;
  maxConnections?: string;
  maxConnectionsPerAddress?: string;
  firstRequestTimeout?: string;
  oidcIssuer?: string;
  oidcClientId?: string;
  oidcClientSecret?: string;
  oidcName?: string;
  oidcSignup?: string;
  oidcOnly?: string;
  oidcMembership?: string;
}

const NAMES: Record<keyof RawEnv, string> = {
  databaseUrl: 'FORMGATE_DATABASE_URL',
  dataDir: 'FORMGATE_DATA_DIR',
  host: 'FORMGATE_HOST',
  port: 'FORMGATE_PORT',
  submitPort: 'FORMGATE_SUBMIT_PORT',
  publicUrl: 'FORMGATE_PUBLIC_URL',
  submitUrl: 'FORMGATE_SUBMIT_URL',
  secret: 'FORMGATE_SECRET',
  smtpUrl: 'FORMGATE_SMTP_URL',
  mailFrom: 'FORMGATE_MAIL_FROM',
  redisUrl: 'FORMGATE_REDIS_URL',
  redisPrefix: 'FORMGATE_REDIS_PREFIX',
  rateLimitSubmit: 'FORMGATE_RATE_LIMIT_SUBMIT',
  rateLimitApi: 'FORMGATE_RATE_LIMIT_API',
  rateLimitLoginAccount: 'FORMGATE_RATE_LIMIT_LOGIN_ACCOUNT',
  rateLimitLoginAddress: 'FORMGATE_RATE_LIMIT_LOGIN_ADDRESS',
  rateLimitSearch: 'FORMGATE_RATE_LIMIT_SEARCH',
  rateLimitExports: 'FORMGATE_RATE_LIMIT_EXPORTS',
  trustProxy: 'FORMGATE_TRUST_PROXY',
  allowPrivateWebhooks: 'FORMGATE_ALLOW_PRIVATE_WEBHOOKS',
  webhookAllow: 'FORMGATE_WEBHOOK_ALLOW',
  logLevel: 'FORMGATE_LOG_LEVEL',
  spamRetentionDays: 'FORMGATE_SPAM_RETENTION_DAYS',
  deliveryRetentionDays: 'FORMGATE_DELIVERY_RETENTION_DAYS',
  auditRetentionDays: 'FORMGATE_AUDIT_RETENTION_DAYS',
  files: 'FORMGATE_FILES',
  botpoisonVerifyUrl: 'FORMGATE_BOTPOISON_VERIFY_URL',
  recaptchaVerifyUrl: 'FORMGATE_RECAPTCHA_VERIFY_URL',
  hcaptchaVerifyUrl: 'FORMGATE_HCAPTCHA_VERIFY_URL',
  turnstileVerifyUrl: 'FORMGATE_TURNSTILE_VERIFY_URL',
  slackApiUrl: 'FORMGATE_SLACK_API_URL',
  telegramApiUrl: 'FORMGATE_TELEGRAM_API_URL',
  airtableApiUrl: 'FORMGATE_AIRTABLE_API_URL',
  notionApiUrl: 'FORMGATE_NOTION_API_URL',
  googleSheetsApiUrl: 'FORMGATE_GOOGLE_SHEETS_API_URL',
  googleOauthTokenUrl: 'FORMGATE_GOOGLE_OAUTH_TOKEN_URL',
  brevoApiUrl: 'FORMGATE_BREVO_API_URL',
  mailchimpApiUrl: 'FORMGATE_MAILCHIMP_API_URL',
  spamdUrl: 'FORMGATE_SPAMD_URL',
  spamJudgesBudget: 'FORMGATE_SPAM_JUDGES_BUDGET',
  akismetUrl: 'FORMGATE_AKISMET_URL',
  signup: 'FORMGATE_SIGNUP',
  defaultPlan: 'FORMGATE_DEFAULT_PLAN',
  sessionIdleTimeout: 'FORMGATE_SESSION_IDLE_TIMEOUT',
  sessionMaxAge: 'FORMGATE_SESSION_MAX_AGE',
  deliveryLease: 'FORMGATE_DELIVERY_LEASE',
  deliveries: 'FORMGATE_DELIVERIES',
  confirmRecipients: 'FORMGATE_CONFIRM_RECIPIENTS',
  metrics: 'FORMGATE_METRICS',
  secretPrevious: 'FORMGATE_SECRET_PREVIOUS',
  startupWait: 'FORMGATE_STARTUP_WAIT',
  logFormat: 'FORMGATE_LOG_FORMAT',
  drainWindow: 'FORMGATE_DRAIN_WINDOW',
  maxConnections: 'FORMGATE_MAX_CONNECTIONS',
  maxConnectionsPerAddress: 'FORMGATE_MAX_CONNECTIONS_PER_ADDRESS',
  firstRequestTimeout: 'FORMGATE_FIRST_REQUEST_TIMEOUT',
  oidcIssuer: 'FORMGATE_OIDC_ISSUER',
  oidcClientId: 'FORMGATE_OIDC_CLIENT_ID',
  oidcClientSecret: 'FORMGATE_OIDC_CLIENT_SECRET',
  oidcName: 'FORMGATE_OIDC_NAME',
  oidcSignup: 'FORMGATE_OIDC_SIGNUP',
  oidcOnly: 'FORMGATE_OIDC_ONLY',
  oidcMembership: 'FORMGATE_OIDC_MEMBERSHIP',
};

export function envName(key: keyof RawEnv): string {
  return NAMES[key];
}

/** Every variable the server reads (the names of RawEnv). */
export function serverVariables(): string[] {
  return Object.values(NAMES);
}

/** Reads the environment (and a `.env` file in the working folder, which never overrides it). */
export function readEnv(source: NodeJS.ProcessEnv = process.env, loadFile = true): RawEnv {
  if (loadFile) loadDotenv({ quiet: true });
  const raw: RawEnv = {};
  for (const [key, name] of Object.entries(NAMES) as [keyof RawEnv, string][]) {
    const value = source[name];
    if (value !== undefined && value !== '') raw[key] = value;
  }
  return raw;
}
