/** Parameters of an import job (the state machine input's `params`). */
export interface ImportParams {
  readonly data_table_id: number;
  readonly version_number: number;
  /** The data source at the time of the request: a later change does not redirect a running import. */
  readonly data_source_id: number;
}

/** Parameters of a schema analysis job. */
export interface SchemaAnalysisParams {
  readonly data_table_id: number;
  readonly version_number: number;
  readonly depth: 'SHALLOW' | 'FULL';
}
