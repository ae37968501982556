import { err, ok, type Result } from '../shared/result';
import type { WorkflowStep } from './types';

export type PlanErrorCode =
  | 'WORKFLOW.EMPTY_STEP_ID'
  | 'WORKFLOW.DUPLICATE_STEP'
  | 'WORKFLOW.UNKNOWN_DEPENDENCY'
  | 'WORKFLOW.CYCLE';

/**
 * The execution graph of a workflow. Two kinds of edge:
 * - data edges (`dependsOn`): the step needs the dependency's output, so it
 *   runs only after the dependency completed and is skipped if it failed;
 * - order edges (array order around non-parallel steps, INV-AGT-003): the step
 *   waits until the predecessor has settled, whatever the outcome.
 */
export interface WorkflowPlan {
  readonly steps: readonly WorkflowStep[];
  readonly indexOf: ReadonlyMap<string, number>;
  readonly dataDeps: readonly (readonly number[])[];
  readonly orderDeps: readonly (readonly number[])[];
  /** A topological order (ties broken by array index): proof the graph is acyclic. */
  readonly topoOrder: readonly number[];
}

export function planWorkflow(steps: readonly WorkflowStep[]): Result<WorkflowPlan, PlanErrorCode> {
  const indexOf = new Map<string, number>();
  for (const [i, step] of steps.entries()) {
    if (step.id.length === 0) return err('WORKFLOW.EMPTY_STEP_ID', `step at index ${i} has an empty id`);
    if (indexOf.has(step.id)) return err('WORKFLOW.DUPLICATE_STEP', `step id '${step.id}' is declared twice`);
    indexOf.set(step.id, i);
  }

  const dataDeps: number[][] = [];
  for (const step of steps) {
    const deps: number[] = [];
    for (const depId of step.dependsOn ?? []) {
      const j = indexOf.get(depId);
      if (j === undefined) {
        return err('WORKFLOW.UNKNOWN_DEPENDENCY', `step '${step.id}' depends on unknown step '${depId}'`);
      }
      if (!deps.includes(j)) deps.push(j);
    }
    dataDeps.push(deps);
  }

  const orderDeps = buildOrderEdges(steps);
  const topoOrder = topologicalOrder(steps.length, dataDeps, orderDeps);
  if (topoOrder.length < steps.length) {
    const stuck = steps.filter((_, i) => !topoOrder.includes(i)).map((s) => s.id);
    return err('WORKFLOW.CYCLE', `circular dependency among steps: ${stuck.join(', ')}`);
  }
  return ok({ steps, indexOf, dataDeps, orderDeps, topoOrder });
}

/**
 * Segments the array into sequential steps and maximal runs of parallel steps;
 * every member of a segment waits for every member of the previous segment.
 * A dependsOn pointing at a later segment therefore closes a cycle and is rejected.
 */
function buildOrderEdges(steps: readonly WorkflowStep[]): number[][] {
  const segments: number[][] = [];
  for (const [i, step] of steps.entries()) {
    const last = segments[segments.length - 1];
    if (step.parallel === true && last !== undefined && steps[last[0]!]!.parallel === true) last.push(i);
    else segments.push([i]);
  }
  const orderDeps: number[][] = steps.map(() => []);
  for (let s = 1; s < segments.length; s++) {
    for (const i of segments[s]!) orderDeps[i] = [...segments[s - 1]!];
  }
  return orderDeps;
}

/** Kahn's algorithm; always picks the lowest ready index so the order is deterministic. */
function topologicalOrder(n: number, dataDeps: number[][], orderDeps: number[][]): number[] {
  const remaining = new Set<number>(Array.from({ length: n }, (_, i) => i));
  const done = new Set<number>();
  const order: number[] = [];
  // At most n rounds, one step placed per round; a round that places none leaves the rest (a cycle) out.
  for (let round = 0; round < n; round++) {
    let next: number | undefined;
    for (const i of remaining) {
      const deps = [...dataDeps[i]!, ...orderDeps[i]!];
      if (deps.every((d) => done.has(d)) && (next === undefined || i < next)) next = i;
    }
    if (next === undefined) break;
    remaining.delete(next);
    done.add(next);
    order.push(next);
  }
  return order;
}

/** Every step that must have completed before `index` could run with its inputs. */
export function dataDependencyClosure(plan: WorkflowPlan, index: number): Set<number> {
  const seen = new Set<number>();
  const stack = [...plan.dataDeps[index]!];
  while (stack.length > 0) {
    const d = stack.pop()!;
    if (seen.has(d)) continue;
    seen.add(d);
    stack.push(...plan.dataDeps[d]!);
  }
  return seen;
}
