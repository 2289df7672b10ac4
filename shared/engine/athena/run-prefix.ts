/**
 * Where a run of a node keeps its Athena files, under the node's output prefix (so a failed
 * build's clean-up removes them). Apart from query.ts, which brings the Trino parser: the
 * cancel route removes these files and must not carry the parser in its bundle.
 */
export function athenaRunPrefix(nodePrefix: string, jobId: string): string {
  return `${nodePrefix}athena/${jobId}/`;
}
