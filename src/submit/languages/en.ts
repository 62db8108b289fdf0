import type { PageText } from './page-text.js';

export const en: PageText = {
  thanks: { title: 'Thank you!', message: 'Your submission has been received.' },
  formAddress: {
    title: 'This is the address of a form',
    message: 'This address receives the submissions of a form on a website. Fill in that form to send a message.',
  },
  onwards:
    'Your submission has been received. The form’s owner asks to send you on to the address below, which this site has not checked: continue only if you expected to go there.',
  goBack: 'Go back',
  backToForm: 'Back to the form',
  poweredBy: 'Powered by Formgate',
  error: { title: 'Something went wrong', message: 'Your submission could not be processed. Please try again later.' },
  errors: {
    validation_error: { title: 'Your submission could not be accepted', message: 'Please check the form and try again.' },
    captcha_failed: { title: 'The CAPTCHA was not solved', message: 'Please complete the CAPTCHA and send the form again.' },
    origin_not_allowed: { title: 'This form cannot be sent from here', message: 'This form takes submissions only from its own website.' },
    not_found: { title: 'Form not found', message: 'This form does not exist or no longer accepts submissions.' },
    payload_too_large: { title: 'Submission too large', message: 'The submission is larger than this form accepts.' },
    form_closed: { title: 'This form is closed', message: 'This form is not taking submissions. Nothing was saved.' },
    quota_exceeded: { title: 'Your submission was not accepted', message: 'This form cannot take more submissions right now. Nothing was saved.' },
    rate_limited: { title: 'Too many submissions', message: 'Please wait a little and try again.' },
    unavailable: { title: 'Try again in a moment', message: 'Your submission was not saved. Please try again shortly.' },
  },
};
