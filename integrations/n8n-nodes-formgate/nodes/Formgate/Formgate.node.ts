import type {
  IDataObject,
  IExecuteFunctions,
  ILoadOptionsFunctions,
  INodeExecutionData,
  INodePropertyOptions,
  INodeType,
  INodeTypeDescription,
} from 'n8n-workflow';
import { CREDENTIAL, EVENTS, formgateList, formgateRequest, formOptions } from './GenericFunctions';

const submission = { show: { resource: ['submission'] } };
const form = { show: { resource: ['form'] } };

/** How many items a list returns: every one, or at most `limit`. */
function listing(resource: string, operation: string) {
  const shown = { show: { resource: [resource], operation: [operation] } };
  return [
    {
      displayName: 'Return All',
      name: 'returnAll',
      type: 'boolean' as const,
      default: false,
      description: 'Whether to return all results or only up to a given limit',
      displayOptions: shown,
    },
    {
      displayName: 'Limit',
      name: 'limit',
      type: 'number' as const,
      default: 50,
      typeOptions: { minValue: 1 },
      description: 'Max number of results to return',
      displayOptions: { show: { ...shown.show, returnAll: [false] } },
    },
  ];
}

/** Formgate's management API: a form's submissions (newest first), a subscription's sample, deleting a submission, the forms of a workspace. */
export class Formgate implements INodeType {
  description: INodeTypeDescription = {
    displayName: 'Formgate',
    name: 'formgate',
    icon: 'file:../../icons/formgate.svg',
    group: ['transform'],
    version: 1,
    subtitle: '={{$parameter["operation"] + ": " + $parameter["resource"]}}',
    description: 'Read forms and submissions of Formgate, the self-hosted form backend, and delete submissions',
    defaults: { name: 'Formgate' },
    inputs: ['main'],
    outputs: ['main'],
    usableAsTool: true,
    credentials: [{ name: CREDENTIAL, required: true }],
    properties: [
      {
        displayName: 'Resource',
        name: 'resource',
        type: 'options',
        noDataExpression: true,
        options: [
          { name: 'Submission', value: 'submission' },
          { name: 'Form', value: 'form' },
        ],
        default: 'submission',
      },
      {
        displayName: 'Operation',
        name: 'operation',
        type: 'options',
        noDataExpression: true,
        displayOptions: submission,
        options: [
          { name: 'Delete', value: 'delete', action: 'Delete a submission', description: 'Delete a submission (it goes from the inbox and from every export)' },
          {
            name: 'Get Many',
            value: 'getAll',
            action: 'Get many submissions',
            description: 'List a form’s submissions, newest first (spam and deleted ones excluded)',
          },
          {
            name: 'Get Sample',
            value: 'getSample',
            action: 'Get a sample submission',
            description: 'What the Formgate Trigger would receive: the form’s newest submission of the event, else a made-up one',
          },
        ],
        default: 'getAll',
      },
      {
        displayName: 'Operation',
        name: 'operation',
        type: 'options',
        noDataExpression: true,
        displayOptions: form,
        options: [{ name: 'Get Many', value: 'getAll', action: 'Get many forms', description: 'List the forms of a workspace, newest first' }],
        default: 'getAll',
      },
      {
        displayName: 'Form Name or ID',
        name: 'formId',
        type: 'options',
        required: true,
        typeOptions: { loadOptionsMethod: 'getForms' },
        default: '',
        description: 'Choose from the list, or specify an ID using an <a href="https://docs.n8n.io/code/expressions/">expression</a>',
        displayOptions: { show: { resource: ['submission'], operation: ['getAll', 'getSample'] } },
      },
      {
        displayName: 'Submission ID',
        name: 'submissionId',
        type: 'string',
        required: true,
        default: '',
        displayOptions: { show: { resource: ['submission'], operation: ['delete'] } },
      },
      {
        displayName: 'Event',
        name: 'event',
        type: 'options',
        default: 'submission.created',
        options: EVENTS,
        displayOptions: { show: { resource: ['submission'], operation: ['getSample'] } },
      },
      {
        displayName: 'Search',
        name: 'search',
        type: 'string',
        default: '',
        description: 'Only submissions whose fields contain this text',
        displayOptions: { show: { resource: ['submission'], operation: ['getAll'] } },
      },
      ...listing('submission', 'getAll'),
      {
        displayName: 'Workspace Name or ID',
        name: 'workspaceId',
        type: 'options',
        required: true,
        typeOptions: { loadOptionsMethod: 'getWorkspaces' },
        default: '',
        description: 'Choose from the list, or specify an ID using an <a href="https://docs.n8n.io/code/expressions/">expression</a>',
        displayOptions: { show: { resource: ['form'], operation: ['getAll'] } },
      },
      ...listing('form', 'getAll'),
    ],
  };

  methods = {
    loadOptions: {
      async getForms(this: ILoadOptionsFunctions): Promise<INodePropertyOptions[]> {
        return formOptions.call(this, false);
      },
      async getWorkspaces(this: ILoadOptionsFunctions): Promise<INodePropertyOptions[]> {
        const workspaces = await formgateList.call(this, '/workspaces');
        return workspaces.map((workspace) => ({ name: String(workspace.name), value: String(workspace.id) }));
      },
    },
  };

  async execute(this: IExecuteFunctions): Promise<INodeExecutionData[][]> {
    const items = this.getInputData();
    const out: INodeExecutionData[] = [];
    for (let i = 0; i < items.length; i++) {
      try {
        const resource = this.getNodeParameter('resource', i) as string;
        const operation = this.getNodeParameter('operation', i) as string;
        const limit = () => (this.getNodeParameter('returnAll', i, false) ? undefined : (this.getNodeParameter('limit', i, 50) as number));
        let results: IDataObject[];
        if (resource === 'submission' && operation === 'getAll') {
          const formId = this.getNodeParameter('formId', i) as string;
          const search = this.getNodeParameter('search', i, '') as string;
          results = await formgateList.call(this, `/forms/${encodeURIComponent(formId)}/submissions`, search ? { search } : {}, limit());
        } else if (resource === 'submission' && operation === 'getSample') {
          const formId = this.getNodeParameter('formId', i) as string;
          const event = this.getNodeParameter('event', i, 'submission.created') as string;
          const sample = (await formgateRequest.call(this, 'GET', `/hooks/samples/${encodeURIComponent(event)}`, { qs: { formId } })) as {
            data: IDataObject[];
          };
          results = sample.data;
        } else if (resource === 'submission' && operation === 'delete') {
          const submissionId = (this.getNodeParameter('submissionId', i) as string).trim();
          if (!submissionId) throw new Error('The submission ID is empty');
          await formgateRequest.call(this, 'DELETE', `/submissions/${encodeURIComponent(submissionId)}`);
          results = [{ id: submissionId, deleted: true }];
        } else if (resource === 'form' && operation === 'getAll') {
          const workspaceId = this.getNodeParameter('workspaceId', i) as string;
          results = await formgateList.call(this, '/forms', { workspaceId }, limit());
        } else {
          throw new Error(`The operation "${operation}" of "${resource}" is not known`);
        }
        for (const json of results) out.push({ json, pairedItem: { item: i } });
      } catch (error) {
        if (!this.continueOnFail()) throw error;
        out.push({ json: { error: error instanceof Error ? error.message : String(error) }, pairedItem: { item: i } });
      }
    }
    return [out];
  }
}
