import { config } from '../config';
import type { ConnectionType } from '../model/connection';

/**
 * Every feature of the service that can be off, as a named toggle (docs/feature-toggles.md).
 * A toggle is `available` when this build has the feature's code: an unavailable toggle is
 * off whatever is stored, and the admin plane refuses to turn it on, so a 10-1501 answer
 * ("feature disabled unless feature flag {0} is on") is always true. The issue that builds a
 * feature makes its toggle available; one that needs an external system the stage configures
 * (ai_assistant's model) is available only where it is configured.
 */
export interface FeatureToggleDefinition {
  readonly description: string;
  /** State while no default is stored: off where the feature needs an external system or costs money. */
  readonly onByDefault: boolean;
  readonly available: boolean;
}

export const FEATURE_TOGGLES = {
  retention: {
    description: 'Automatic deletion of data versions by the tenant’s retention policy',
    onByDefault: false,
    available: true,
  },
  quota_enforcement: {
    description: 'Refusing work beyond the tenant’s quota contract (CPU hours, data transfer)',
    onByDefault: false,
    available: true,
  },
  transfers: {
    description: 'Transfers to pricing systems, and the pricing_dim and pricing_sdk connectors that receive them',
    onByDefault: false,
    available: true,
  },
  ai_assistant: {
    description: 'AI-assistant conversations (a paid external model)',
    onByDefault: false,
    /** Available where a model is configured: a Bedrock model id or a chat-completions endpoint (docs/assistant.md). */
    get available(): boolean {
      const { bedrockModelId, chatEndpoint } = config.assistant;
      return bedrockModelId !== '' || chatEndpoint !== '';
    },
  },
  apps: {
    description: 'Apps: bundles, installs, links, sessions, runs, assets and key-value stores (docs/apps.md)',
    onByDefault: false,
    available: true,
  },
  schedules: {
    description:
      'Schedules that build a dataset’s graph version by cron, rate or a source table’s new version, without a person’s request (docs/schedules.md)',
    onByDefault: false,
    available: true,
  },
  delta_sharing: {
    description: 'The delta_sharing connector: tests, tables and reads of shared tables',
    onByDefault: false,
    available: true,
  },
  athena: {
    description:
      'Recipes in Trino’s dialect (language trino-sql), run by Athena over the tenant’s Parquet (docs/recipe-languages.md)',
    onByDefault: false,
    /** Available where the stage has Athena's per-tenant workgroups and Glue databases (or the twin's stand-in). */
    get available(): boolean {
      return config.athena.workgroupPrefix !== '';
    },
  },
  data_quality: {
    description:
      'Data-quality rules on data tables, checked after each import; an error rule that fails blocks release, export and transfer (docs/data-quality.md)',
    onByDefault: false,
    available: true,
  },
  openlineage: {
    description:
      'OpenLineage run events (START, COMPLETE, FAIL) of every import, recipe run, export and transfer, sent to the stage’s OPENLINEAGE_URL (docs/lineage.md)',
    onByDefault: false,
    /** Available where the stage names an endpoint for the events. */
    get available(): boolean {
      return config.openLineage.url !== '';
    },
  },
  'connector.object_store': {
    description: 'The object_store connector: S3-compatible stores',
    onByDefault: true,
    available: true,
  },
  'connector.cloud_store': {
    description: 'The cloud_store connector: Google Cloud Storage buckets',
    onByDefault: true,
    available: true,
  },
  'connector.warehouse': {
    description: 'The warehouse connector: Snowflake',
    onByDefault: true,
    available: true,
  },
  'connector.analytics_db': {
    description: 'The analytics_db connector: BigQuery',
    onByDefault: true,
    available: true,
  },
} as const satisfies Record<string, FeatureToggleDefinition>;

export type FeatureName = keyof typeof FEATURE_TOGGLES;
export const FEATURE_NAMES = Object.keys(FEATURE_TOGGLES) as FeatureName[];

export function isFeatureName(name: string): name is FeatureName {
  return Object.hasOwn(FEATURE_TOGGLES, name);
}

/** The toggle behind each connection type's connector. */
export const CONNECTOR_TOGGLES: Readonly<Record<ConnectionType, FeatureName>> = {
  object_store: 'connector.object_store',
  cloud_store: 'connector.cloud_store',
  warehouse: 'connector.warehouse',
  analytics_db: 'connector.analytics_db',
  delta_sharing: 'delta_sharing',
  pricing_dim: 'transfers',
  pricing_sdk: 'transfers',
};
