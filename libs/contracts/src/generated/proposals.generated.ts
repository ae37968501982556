/* eslint-disable */
// Generated from proto-contracts/schemas/proposals/ by scripts/generate-contracts.js. Do not edit by hand.

export interface AnalyzeLeadsProposal {
  action_type: 'analyze_leads';
  analysis_type: 'prioritize' | 'categorize' | 'score_update';
  parameters?: {};
}

export interface CreateTaskProposal {
  action_type: 'create_task';
  task: {
    description: string;
    preconditions?: string[];
  };
  justification?: string;
}

export interface ExecuteToolProposal {
  action_type: 'execute_tool';
  tool_name: 'browser_navigate' | 'browser_click' | 'browser_type' | 'send_message' | 'python_execute';
  parameters: {};
  expected_outcome?: string;
}

export interface GenerateMessageProposal {
  action_type: 'generate_message';
  message: {
    type: 'connection_request' | 'follow_up' | 'direct_message';
    content: string;
    personalization_context?: {};
  };
  requires_approval?: boolean;
}

export interface NoOpProposal {
  action_type: 'no_op';
  reason: 'awaiting_user_input' | 'preconditions_not_met' | 'rate_limit_reached' | 'campaign_complete';
  details?: string;
}

export interface PersistArtifactProposal {
  action_type: 'persist_artifact';
  artifact: {
    artifact_type: 'job_posting' | 'scoring_algorithm' | 'python_script' | 'analysis_result';
    artifact_key: string;
    content: {};
  };
  requires_approval?: boolean;
}

export interface RequestUserInputProposal {
  action_type: 'request_user_input';
  question: string;
  options?: string[];
  context?: string;
}

export interface SelectNextTaskProposal {
  action_type: 'select_next_task';
  task_id: string;
  reasoning?: string;
}

export interface StateSnapshot {
  campaign: {
    id: string;
    name: string;
    status: 'initializing' | 'active' | 'paused' | 'completed' | 'error';
  };
  current_task: null | {
    id: string;
    description: string;
    status: 'pending' | 'in-progress' | 'done' | 'blocked';
    preconditions?: string[];
  };
  /**
   * @maxItems 10
   */
  pending_tasks:
    | []
    | [
        {
          id: string;
          description: string;
        }
      ]
    | [
        {
          id: string;
          description: string;
        },
        {
          id: string;
          description: string;
        }
      ]
    | [
        {
          id: string;
          description: string;
        },
        {
          id: string;
          description: string;
        },
        {
          id: string;
          description: string;
        }
      ]
    | [
        {
          id: string;
          description: string;
        },
        {
          id: string;
          description: string;
        },
        {
          id: string;
          description: string;
        },
        {
          id: string;
          description: string;
        }
      ]
    | [
        {
          id: string;
          description: string;
        },
        {
          id: string;
          description: string;
        },
        {
          id: string;
          description: string;
        },
        {
          id: string;
          description: string;
        },
        {
          id: string;
          description: string;
        }
      ]
    | [
        {
          id: string;
          description: string;
        },
        {
          id: string;
          description: string;
        },
        {
          id: string;
          description: string;
        },
        {
          id: string;
          description: string;
        },
        {
          id: string;
          description: string;
        },
        {
          id: string;
          description: string;
        }
      ]
    | [
        {
          id: string;
          description: string;
        },
        {
          id: string;
          description: string;
        },
        {
          id: string;
          description: string;
        },
        {
          id: string;
          description: string;
        },
        {
          id: string;
          description: string;
        },
        {
          id: string;
          description: string;
        },
        {
          id: string;
          description: string;
        }
      ]
    | [
        {
          id: string;
          description: string;
        },
        {
          id: string;
          description: string;
        },
        {
          id: string;
          description: string;
        },
        {
          id: string;
          description: string;
        },
        {
          id: string;
          description: string;
        },
        {
          id: string;
          description: string;
        },
        {
          id: string;
          description: string;
        },
        {
          id: string;
          description: string;
        }
      ]
    | [
        {
          id: string;
          description: string;
        },
        {
          id: string;
          description: string;
        },
        {
          id: string;
          description: string;
        },
        {
          id: string;
          description: string;
        },
        {
          id: string;
          description: string;
        },
        {
          id: string;
          description: string;
        },
        {
          id: string;
          description: string;
        },
        {
          id: string;
          description: string;
        },
        {
          id: string;
          description: string;
        }
      ]
    | [
        {
          id: string;
          description: string;
        },
        {
          id: string;
          description: string;
        },
        {
          id: string;
          description: string;
        },
        {
          id: string;
          description: string;
        },
        {
          id: string;
          description: string;
        },
        {
          id: string;
          description: string;
        },
        {
          id: string;
          description: string;
        },
        {
          id: string;
          description: string;
        },
        {
          id: string;
          description: string;
        },
        {
          id: string;
          description: string;
        }
      ];
  leads_summary: {
    total: number;
    pending: number;
    contacted: number;
    responded: number;
    current_lead: null | {
      id: string;
      full_name: string;
      profile_url: string;
      job_title?: string;
      company?: string;
      weight_score?: number;
    };
  };
  /**
   * @maxItems 5
   */
  recent_audit_log:
    | []
    | [
        {
          action_type: string;
          timestamp: string;
          success: boolean;
          payload?: {};
        }
      ]
    | [
        {
          action_type: string;
          timestamp: string;
          success: boolean;
          payload?: {};
        },
        {
          action_type: string;
          timestamp: string;
          success: boolean;
          payload?: {};
        }
      ]
    | [
        {
          action_type: string;
          timestamp: string;
          success: boolean;
          payload?: {};
        },
        {
          action_type: string;
          timestamp: string;
          success: boolean;
          payload?: {};
        },
        {
          action_type: string;
          timestamp: string;
          success: boolean;
          payload?: {};
        }
      ]
    | [
        {
          action_type: string;
          timestamp: string;
          success: boolean;
          payload?: {};
        },
        {
          action_type: string;
          timestamp: string;
          success: boolean;
          payload?: {};
        },
        {
          action_type: string;
          timestamp: string;
          success: boolean;
          payload?: {};
        },
        {
          action_type: string;
          timestamp: string;
          success: boolean;
          payload?: {};
        }
      ]
    | [
        {
          action_type: string;
          timestamp: string;
          success: boolean;
          payload?: {};
        },
        {
          action_type: string;
          timestamp: string;
          success: boolean;
          payload?: {};
        },
        {
          action_type: string;
          timestamp: string;
          success: boolean;
          payload?: {};
        },
        {
          action_type: string;
          timestamp: string;
          success: boolean;
          payload?: {};
        },
        {
          action_type: string;
          timestamp: string;
          success: boolean;
          payload?: {};
        }
      ];
  available_artifacts?: {
    artifact_type: string;
    artifact_key: string;
  }[];
}

/**
 * Controller response to a proposal that was rejected (FR-010). The proposal had no effect: validation is total before execution.
 */
export interface ValidationError {
  is_valid: false;
  /**
   * The proposal's action_type when it could be read, null otherwise (unparseable JSON, missing or unknown action type).
   */
  action_type?: null | string;
  /**
   * One-line summary fit for a retry prompt.
   */
  error: string;
  /**
   * Every violation found, schema layer then business layer.
   *
   * @minItems 1
   */
  errors: [string, ...string[]];
}
