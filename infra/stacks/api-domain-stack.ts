/**
 * The routes of one domain (the route table's `tag`) in a nested stack: a function per route,
 * its API Gateway route and integration. A function with its role, log group, route,
 * integration and invoke permission is about seven resources, so domains, not the whole API,
 * share CloudFormation's 500-resource limit. A route that declares `engine` gets DuckDB from
 * the stage's layer and more memory.
 */
import { Duration, NestedStack, Validations } from 'aws-cdk-lib';
import {
  HttpAuthorizer,
  HttpMethod,
  HttpNoneAuthorizer,
  HttpRoute,
  HttpRouteKey,
  type IHttpApi,
} from 'aws-cdk-lib/aws-apigatewayv2';
import { HttpLambdaIntegration } from 'aws-cdk-lib/aws-apigatewayv2-integrations';
import type { ILayerVersion } from 'aws-cdk-lib/aws-lambda';
import type { Construct } from 'constructs';
import { API_BASE_PATH } from '../../shared/config';
import { handlerLabel } from '../../shared/http/handler-ref';
import type { RouteSpec } from '../../shared/http/route';
import { ENGINE_EXTERNAL_MODULES } from '../bundling';
import type { AccessTargets } from './access-targets';
import type { MemorySizes } from './memory';
import { ServiceFunction, type ServiceFunctionProps } from './service-function';
import { pascalCase } from './stage';

/** API Gateway waits at most 30 s for an integration; a route's function stops before that. */
export const ROUTE_TIMEOUT = Duration.seconds(29);
/** The defaults of the stage's memory sizes (memory.ts), where the benches and tests read them. */
export { ENGINE_ROUTE_MEMORY_MB, ROUTE_MEMORY_MB } from './memory';

export interface ApiDomainStackProps {
  readonly domain: string;
  readonly routes: readonly RouteSpec[];
  readonly httpApi: IHttpApi;
  /** Id of the API's Lambda authorizer (root stack). */
  readonly authorizerId: string;
  readonly targets: AccessTargets;
  readonly environment: Readonly<Record<string, string>>;
  /** DuckDB for routes that declare engine (the stage's one DuckDB layer); required when one does. */
  readonly engineLayer?: ILayerVersion;
  /** The stage's memory sizes (memory.ts): `route`, and `engineRoute` for routes that declare engine. */
  readonly memory: Pick<MemorySizes, 'route' | 'engineRoute'>;
}

export class ApiDomainStack extends NestedStack {
  /** By operationId. */
  readonly functions = new Map<string, ServiceFunction>();

  constructor(scope: Construct, id: string, props: ApiDomainStackProps) {
    super(scope, id, { description: `Data Preparation Service: ${props.domain} routes` });
    const authorizer = HttpAuthorizer.fromHttpAuthorizerAttributes(this, 'Authorizer', {
      authorizerId: props.authorizerId,
      authorizerType: 'CUSTOM',
    });
    for (const route of props.routes) {
      const id = pascalCase(route.operationId);
      const path = `${API_BASE_PATH}${route.path}`;
      const fn = new ServiceFunction(this, id, {
        handler: route.handler,
        description: `${route.method} ${path} (${route.operationId}, ${handlerLabel(route.handler)})`,
        access: route.access,
        targets: props.targets,
        environment: props.environment,
        timeout: ROUTE_TIMEOUT,
        memorySize: props.memory.route,
        ...(route.engine ? engineOptions(route.operationId, props.engineLayer, props.memory.engineRoute) : {}),
      });
      const apiRoute = new HttpRoute(this, `${id}Route`, {
        httpApi: props.httpApi,
        routeKey: HttpRouteKey.with(path, HttpMethod[route.method]),
        integration: new HttpLambdaIntegration(`${id}Integration`, fn.function),
        // Public routes (permission null) run without the authorizer.
        authorizer: route.permission === null ? new HttpNoneAuthorizer() : authorizer,
      });
      if (route.permission === null) {
        Validations.of(apiRoute).acknowledge({
          id: 'AwsSolutions::AwsSolutions-APIG4',
          reason: `Public by the route table (permission null): ${route.summary}.`,
        });
      }
      this.functions.set(route.operationId, fn);
    }
  }
}

/** What an engine route differs in: DuckDB from the layer rather than the bundle, and more memory. */
function engineOptions(
  operationId: string,
  layer: ILayerVersion | undefined,
  memorySize: number,
): Pick<ServiceFunctionProps, 'externalModules' | 'layers' | 'memorySize'> {
  if (!layer) throw new Error(`route ${operationId} declares engine, but its domain stack was given no DuckDB layer`);
  return { externalModules: ENGINE_EXTERNAL_MODULES, layers: [layer], memorySize };
}
