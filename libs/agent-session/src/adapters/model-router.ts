import type { Model } from '../ports';

/** One Model for many providers: each request goes to the adapter of its target's provider. */
export function routeModels(models: Readonly<Record<string, Model>>): Model {
  return {
    async call(request) {
      const model = models[request.target.provider];
      if (!model) return { ok: false, error: { kind: 'model', message: `no model adapter for provider '${request.target.provider}'` } };
      return model.call(request);
    },
  };
}
