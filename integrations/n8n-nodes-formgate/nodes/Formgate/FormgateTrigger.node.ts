import type {
  IDataObject,
  IHookFunctions,
  ILoadOptionsFunctions,
  INodePropertyOptions,
  INodeType,
  INodeTypeDescription,
  IWebhookFunctions,
  IWebhookResponseData,
} from 'n8n-workflow';
import { CREDENTIAL, EVENTS, formgateList, formgateRequest, formOptions, isNotFound, signatureProblem, WORKSPACE_PREFIX } from './GenericFunctions';

/** What the trigger keeps in the workflow's static data between activation and deactivation. */
interface HookData extends IDataObject {
  hookId?: string;
  hookSecret?: string;
}

/**
 * Starts a workflow on a Formgate form's events, instantly: activating the workflow subscribes its
 * webhook URL with POST /hooks (the hook's id and signing secret kept in the node's static data),
 * deactivating it unsubscribes with DELETE /hooks/{id}. Each event arrives as Formgate's Submission.
 */
export class FormgateTrigger implements INodeType {
  description: INodeTypeDescription = {
    displayName: 'Formgate Trigger',
    name: 'formgateTrigger',
    icon: 'file:../../icons/formgate.svg',
    group: ['trigger'],
    version: 1,
    subtitle: '={{$parameter["event"]}}',
    description: 'Starts the workflow when a Formgate form receives a submission, flags one as spam, or loses one',
    defaults: { name: 'Formgate Trigger' },
    inputs: [],
    outputs: ['main'],
    credentials: [{ name: CREDENTIAL, required: true }],
    webhooks: [{ name: 'default', httpMethod: 'POST', responseMode: 'onReceived', path: 'webhook' }],
    properties: [
      {
        displayName: 'Event',
        name: 'event',
        type: 'options',
        required: true,
        default: 'submission.created',
        options: EVENTS,
      },
      {
        displayName: 'Form Name or ID',
        name: 'formId',
        type: 'options',
        required: true,
        typeOptions: { loadOptionsMethod: 'getForms' },
        default: '',
        description:
          'The form whose events start the workflow, or every form of a workspace. Choose from the list, or specify an ID using an <a href="https://docs.n8n.io/code/expressions/">expression</a>.',
      },
      {
        displayName: 'Verify Signature',
        name: 'verifySignature',
        type: 'boolean',
        default: true,
        description: 'Whether to refuse (401) a request not signed with the subscription’s secret (Standard Webhooks)',
      },
    ],
  };

  methods = {
    loadOptions: {
      async getForms(this: ILoadOptionsFunctions): Promise<INodePropertyOptions[]> {
        return formOptions.call(this, true);
      },
    },
  };

  webhookMethods = {
    default: {
      /** Whether the subscription kept in static data still exists, for this URL and event. */
      async checkExists(this: IHookFunctions): Promise<boolean> {
        const data = this.getWorkflowStaticData('node') as HookData;
        if (!data.hookId) return false;
        const hooks = await formgateList.call(this, '/hooks');
        const webhookUrl = this.getNodeWebhookUrl('default');
        const event = this.getNodeParameter('event') as string;
        const hook = hooks.find((h) => h.id === data.hookId);
        if (hook && hook.targetUrl === webhookUrl && hook.event === event && data.hookSecret) return true;
        // gone (revoked key, a 410, removed in the dashboard) or out of date: forget it; a stale one is removed
        if (hook) await formgateRequest.call(this, 'DELETE', `/hooks/${encodeURIComponent(String(hook.id))}`).catch(() => undefined);
        delete data.hookId;
        delete data.hookSecret;
        return false;
      },

      /** Subscribes this node's webhook URL to the event of the chosen form (or workspace). */
      async create(this: IHookFunctions): Promise<boolean> {
        const webhookUrl = this.getNodeWebhookUrl('default');
        if (!webhookUrl) throw new Error('n8n gave the Formgate Trigger no webhook URL');
        const event = this.getNodeParameter('event') as string;
        const target = String(this.getNodeParameter('formId'));
        const body: IDataObject = { targetUrl: webhookUrl, event };
        if (target.startsWith(WORKSPACE_PREFIX)) body.workspaceId = target.slice(WORKSPACE_PREFIX.length);
        else if (target) body.formId = target;
        else throw new Error('Choose a form (or every form of a workspace) for the Formgate Trigger');
        const hook = (await formgateRequest.call(this, 'POST', '/hooks', { body })) as { id?: string; secret?: string };
        if (!hook?.id) return false;
        const data = this.getWorkflowStaticData('node') as HookData;
        data.hookId = hook.id;
        data.hookSecret = hook.secret;
        return true;
      },

      /** Unsubscribes; one Formgate already removed counts as done. */
      async delete(this: IHookFunctions): Promise<boolean> {
        const data = this.getWorkflowStaticData('node') as HookData;
        if (data.hookId) {
          try {
            await formgateRequest.call(this, 'DELETE', `/hooks/${encodeURIComponent(data.hookId)}`);
          } catch (error) {
            if (!isNotFound(error)) return false;
          }
        }
        delete data.hookId;
        delete data.hookSecret;
        return true;
      },
    },
  };

  /** One event: the posted body (a Submission, or a deletion's id, formId and deletedAt), after its signature is checked. */
  async webhook(this: IWebhookFunctions): Promise<IWebhookResponseData> {
    const body = this.getBodyData();
    const headers = this.getHeaderData() as Record<string, string | string[] | undefined>;
    const data = this.getWorkflowStaticData('node') as HookData;
    if ((this.getNodeParameter('verifySignature', true) as boolean) && data.hookSecret) {
      const raw = (this.getRequestObject() as { rawBody?: Buffer | string }).rawBody;
      const problem = signatureProblem(data.hookSecret, headers, raw === undefined ? JSON.stringify(body) : raw.toString());
      if (problem) {
        this.getResponseObject().status(401).send(`Formgate Trigger: ${problem}`).end();
        return { noWebhookResponse: true };
      }
    }
    return { workflowData: [this.helpers.returnJsonArray(body)] };
  }
}
