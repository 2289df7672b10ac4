import { defineRoute } from '../../shared/http/route';
import {
  StartTransferRequest,
  TransferCreated,
  TransferIdParams,
  TransferList,
  TransferResponse,
} from '../../shared/model/transfer';
import { storedTransfers } from '../../shared/transfers/store';
import { transferJob } from '../../shared/transfers/jobs';

const tag = 'transfers';
const FEATURE = 'Needs the `transfers` feature (10-1501 while it is off for the tenant).';

export const transferRoutes = {
  start: defineRoute({
    operationId: 'startTransfer',
    method: 'POST',
    path: '/transfers',
    summary: 'Transfer a version into a pricing target',
    description: `Sends a released dataset version's output, or a COMPLETED data table version, into the table the pricing target names, through its connection, with the connection's type mapping (30-4009 for a column it cannot map). The pricing system's row and column limits are checked before any row is sent (job errors 30-6003, 30-6004; 10-1046 when the DIM's GET /import fails). While the transfer runs, the target cannot be updated or deleted (30-6005). Poll GET /transfers/{transfer_id}. Send an Idempotency-Key header to make retries safe: a retry names the same transfer and sends nothing twice. ${FEATURE}`,
    tag,
    handler: 'transfers/start',
    permission: 'data:write',
    request: { body: StartTransferRequest, idempotent: true },
    response: { status: 202, description: 'Transfer started', body: TransferCreated },
    errors: [
      '10-1501',
      '20-1042',
      '20-1043',
      '10-1042',
      '10-444',
      '10-1044',
      '10-1045',
      '10-1006',
      '30-4009',
      '30-5002',
      '30-5008',
      '30-5009',
      '30-6001',
      '30-6002',
      '30-6006',
    ],
    access: { table: 'write', startsJobs: [transferJob] },
  }),
  list: defineRoute({
    operationId: 'listTransfers',
    method: 'GET',
    path: '/transfers',
    summary: 'List transfers',
    description: FEATURE,
    tag,
    handler: 'transfers/entity#list',
    permission: 'data:read',
    request: { query: storedTransfers.listQuery },
    response: { status: 200, description: 'A page of transfers', body: TransferList },
    errors: ['10-1501'],
    access: { table: 'write' },
  }),
  get: defineRoute({
    operationId: 'getTransfer',
    method: 'GET',
    path: '/transfers/{transfer_id}',
    summary: 'A transfer, with its job status and the rows sent and accepted',
    description: FEATURE,
    tag,
    handler: 'transfers/entity#get',
    permission: 'data:read',
    request: { params: TransferIdParams },
    response: {
      status: 200,
      description: 'The transfer; execution holds the job status and any error',
      body: TransferResponse,
    },
    errors: ['10-1501', '10-404'],
    access: { table: 'write' },
  }),
};
