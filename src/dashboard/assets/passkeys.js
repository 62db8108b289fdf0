// Passkey ceremonies (views/passkey-forms.tsx), with @simplewebauthn/browser (webauthn.js, loaded
// before this script). A <form data-passkey="register|authenticate" data-options="/…"> stays hidden
// until this script shows it, in a browser that can use passkeys; its button fetches the options,
// asks the browser for a passkey, puts the answer in the form's `response` field and posts the form.
// Its [data-passkey-note] says why there is no button where there is none.
const webauthn = globalThis.SimpleWebAuthnBrowser;
const supported = Boolean(webauthn?.browserSupportsWebAuthn());

for (const note of document.querySelectorAll('[data-passkey-note]')) {
  if (supported) note.hidden = true;
  else note.textContent = note.dataset.unsupported;
}

/** What the status line says when the ceremony did not end in a post. */
function messageOf(error) {
  if (error?.name === 'NotAllowedError' || error?.name === 'AbortError') return 'The passkey prompt was closed or timed out: nothing changed. Try again.';
  if (error?.name === 'InvalidStateError') return 'This device already holds a passkey of your account.';
  return error?.message || 'The passkey could not be used: nothing changed. Try again.';
}

/** The ceremony's options from the server: its refusal's words when it refuses, and a plain word when the page is out of date. */
async function optionsOf(url) {
  const answer = await fetch(url, { headers: { accept: 'application/json' }, credentials: 'same-origin', cache: 'no-store' });
  if (!(answer.headers.get('content-type') ?? '').includes('json')) throw new Error('This page is out of date: reload it and try again.');
  const body = await answer.json();
  if (!answer.ok) throw new Error(body.detail);
  return body;
}

for (const form of supported ? document.querySelectorAll('form[data-passkey]') : []) {
  form.hidden = false;
  const status = form.querySelector('[data-passkey-status]');
  const button = form.querySelector('button[type="submit"]');
  form.addEventListener('submit', async (event) => {
    event.preventDefault();
    if (!form.reportValidity()) return;
    button.disabled = true;
    status.textContent = 'Waiting for your passkey…';
    try {
      const optionsJSON = await optionsOf(form.dataset.options);
      const answer =
        form.dataset.passkey === 'register' ? await webauthn.startRegistration({ optionsJSON }) : await webauthn.startAuthentication({ optionsJSON });
      form.elements.response.value = JSON.stringify(answer);
      status.textContent = 'Checking…';
      form.submit();
    } catch (error) {
      status.textContent = messageOf(error);
      button.disabled = false;
    }
  });
}
