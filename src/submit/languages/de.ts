import type { PageText } from './page-text.js';

export const de: PageText = {
  thanks: { title: 'Vielen Dank!', message: 'Ihre Nachricht ist eingegangen.' },
  formAddress: {
    title: 'Dies ist die Adresse eines Formulars',
    message: 'Diese Adresse nimmt die Einsendungen eines Formulars auf einer Website entgegen. Füllen Sie dieses Formular aus, um eine Nachricht zu senden.',
  },
  onwards:
    'Ihre Nachricht ist eingegangen. Der Inhaber des Formulars möchte Sie zur unten stehenden Adresse weiterleiten, die diese Website nicht geprüft hat: Fahren Sie nur fort, wenn Sie dorthin wollten.',
  goBack: 'Zurück',
  backToForm: 'Zurück zum Formular',
  poweredBy: 'Bereitgestellt von Formgate',
  error: { title: 'Etwas ist schiefgelaufen', message: 'Ihre Nachricht konnte nicht verarbeitet werden. Bitte versuchen Sie es später erneut.' },
  errors: {
    validation_error: { title: 'Ihre Nachricht konnte nicht angenommen werden', message: 'Bitte prüfen Sie das Formular und versuchen Sie es erneut.' },
    captcha_failed: { title: 'Das CAPTCHA wurde nicht gelöst', message: 'Bitte lösen Sie das CAPTCHA und senden Sie das Formular erneut.' },
    origin_not_allowed: {
      title: 'Dieses Formular kann von hier nicht gesendet werden',
      message: 'Dieses Formular nimmt nur Einsendungen von seiner eigenen Website an.',
    },
    not_found: { title: 'Formular nicht gefunden', message: 'Dieses Formular existiert nicht oder nimmt keine Einsendungen mehr an.' },
    payload_too_large: { title: 'Nachricht zu groß', message: 'Die Nachricht ist größer, als dieses Formular annimmt.' },
    form_closed: { title: 'Dieses Formular ist geschlossen', message: 'Dieses Formular nimmt keine Einsendungen an. Es wurde nichts gespeichert.' },
    quota_exceeded: {
      title: 'Ihre Nachricht wurde nicht angenommen',
      message: 'Dieses Formular nimmt derzeit keine weiteren Einsendungen an. Es wurde nichts gespeichert.',
    },
    rate_limited: { title: 'Zu viele Einsendungen', message: 'Bitte warten Sie einen Moment und versuchen Sie es erneut.' },
    unavailable: { title: 'Versuchen Sie es gleich noch einmal', message: 'Ihre Nachricht wurde nicht gespeichert. Bitte versuchen Sie es in Kürze erneut.' },
  },
};
