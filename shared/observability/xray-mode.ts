/**
 * Imported by tracing.ts before Powertools' Tracer, which loads the X-Ray SDK: outside Lambda,
 * where the Tracer is off, the SDK starts in manual mode. In its automatic mode (its default) it
 * installs an async hook with a destroy callback when it loads (cls-hooked), which every promise
 * of the process then pays for: about a tenth of the twin's CPU under a corpus of requests, for
 * traces nobody records. In Lambda the layer's Tracer loads first and stays in automatic mode,
 * which its segments need.
 */
if (process.env.AWS_LAMBDA_FUNCTION_NAME === undefined) process.env.AWS_XRAY_MANUAL_MODE ??= 'true';

export {};
