import { Logger } from '@aws-lambda-powertools/logger';

/**
 * One structured JSON logger for every function. The level comes from POWERTOOLS_LOG_LEVEL
 * (the test harness sets it to SILENT). Secrets never reach it: request bodies are not logged.
 */
export const logger = new Logger({ serviceName: 'data-preparation' });
