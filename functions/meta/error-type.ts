import { STATUS_CODES } from 'node:http';
import { errorCatalogue, type ErrorCode } from '../../shared/errors/catalogue';
import { notFound } from '../../shared/errors/app-error';
import { httpHandler } from '../../shared/http/handler';
import { metaRoutes } from './routes';

export const handler = httpHandler(metaRoutes.errorType, async ({ params }) => {
  if (!Object.hasOwn(errorCatalogue, params.code)) throw notFound('error type', params.code);
  const entry = errorCatalogue[params.code as ErrorCode];
  return {
    body: {
      code: params.code,
      status: entry.status,
      title: STATUS_CODES[entry.status] ?? 'Error',
      message: entry.message,
    },
  };
});
