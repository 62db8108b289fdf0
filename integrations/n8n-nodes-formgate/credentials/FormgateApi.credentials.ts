import type { IAuthenticateGeneric, ICredentialTestRequest, ICredentialType, Icon, INodeProperties } from 'n8n-workflow';

/**
 * A Formgate installation's management API and a secret for it: an automation-tool key (`fgak_…`,
 * one workspace's, made in its Settings → Automations) or an API token (`fg_…`).
 */
export class FormgateApi implements ICredentialType {
  name = 'formgateApi';

  displayName = 'Formgate API';

  icon: Icon = 'file:../icons/formgate.svg';

  documentationUrl = 'https://www.npmjs.com/package/n8n-nodes-formgate';

  properties: INodeProperties[] = [
    {
      displayName: 'API Address',
      name: 'baseUrl',
      type: 'string',
      default: '',
      required: true,
      placeholder: 'https://forms.example.com/public/v1',
      description:
        'The address of the management API, as the workspace’s Settings → Automations page shows it (the installation’s address followed by /public/v1)',
    },
    {
      displayName: 'Key or Token',
      name: 'apiKey',
      type: 'string',
      typeOptions: { password: true },
      default: '',
      required: true,
      description:
        'An automation-tool key (fgak_…) or an API token (fg_…) with the submissions:read scope, and forms:read and workspaces:read for the form list',
    },
  ];

  authenticate: IAuthenticateGeneric = {
    type: 'generic',
    properties: {
      headers: {
        Authorization: '=Bearer {{$credentials.apiKey}}',
      },
    },
  };

  test: ICredentialTestRequest = {
    request: {
      // as the nodes do (GenericFunctions' apiBase): the installation's address alone is enough
      baseURL: '={{$credentials.baseUrl.trim().replace(/\\/+$/, "").replace(/(\\/public\\/v1)?$/, "/public/v1")}}',
      url: '/me',
      method: 'GET',
    },
  };
}
