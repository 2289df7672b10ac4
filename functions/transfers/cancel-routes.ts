import { defineRoute } from '../../shared/http/route';
import { TransferIdParams, TransferResponse } from '../../shared/model/transfer';
import { transferJob } from '../../shared/transfers/jobs';
import { CANCEL_DESCRIPTION } from '../data-tables/cancel-routes';

/** Cancelling a transfer (shared/jobs/cancel.ts). */
export const transferCancelRoutes = {
  cancel: defineRoute({
    operationId: 'cancelTransfer',
    method: 'POST',
    path: '/transfers/{transfer_id}/cancel',
    summary: 'Cancel a transfer',
    description: `${CANCEL_DESCRIPTION} Its target is released at once; rows_sent and rows_accepted keep what the pricing system had been sent. Needs the \`transfers\` feature (10-1501 while it is off for the tenant).`,
    tag: 'transfers',
    handler: 'transfers/cancel',
    permission: 'data:write',
    request: { params: TransferIdParams },
    response: { status: 200, description: 'The transfer, its job ABORTED', body: TransferResponse },
    errors: ['90-1001', '10-1501', '10-404'],
    access: { table: 'write', stopsJobs: [transferJob] },
  }),
};
