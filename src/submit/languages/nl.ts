import type { PageText } from './page-text.js';

export const nl: PageText = {
  thanks: { title: 'Bedankt!', message: 'Je bericht is ontvangen.' },
  formAddress: {
    title: 'Dit is het adres van een formulier',
    message: 'Dit adres ontvangt de inzendingen van een formulier op een website. Vul dat formulier in om een bericht te sturen.',
  },
  onwards:
    'Je bericht is ontvangen. De eigenaar van het formulier wil je doorsturen naar het adres hieronder, dat deze site niet heeft gecontroleerd: ga alleen verder als je dat verwachtte.',
  goBack: 'Terug',
  backToForm: 'Terug naar het formulier',
  poweredBy: 'Mogelijk gemaakt door Formgate',
  error: { title: 'Er is iets misgegaan', message: 'Je inzending kon niet worden verwerkt. Probeer het later opnieuw.' },
  errors: {
    validation_error: { title: 'Je inzending kon niet worden geaccepteerd', message: 'Controleer het formulier en probeer het opnieuw.' },
    captcha_failed: { title: 'De CAPTCHA is niet opgelost', message: 'Los de CAPTCHA op en verstuur het formulier opnieuw.' },
    origin_not_allowed: {
      title: 'Dit formulier kan niet vanaf hier worden verstuurd',
      message: 'Dit formulier accepteert alleen inzendingen van de eigen website.',
    },
    not_found: { title: 'Formulier niet gevonden', message: 'Dit formulier bestaat niet of accepteert geen inzendingen meer.' },
    payload_too_large: { title: 'Inzending te groot', message: 'De inzending is groter dan dit formulier accepteert.' },
    form_closed: { title: 'Dit formulier is gesloten', message: 'Dit formulier neemt geen inzendingen aan. Er is niets opgeslagen.' },
    quota_exceeded: {
      title: 'Je inzending is niet geaccepteerd',
      message: 'Dit formulier neemt op dit moment geen inzendingen meer aan. Er is niets opgeslagen.',
    },
    rate_limited: { title: 'Te veel inzendingen', message: 'Wacht even en probeer het opnieuw.' },
    unavailable: { title: 'Probeer het zo opnieuw', message: 'Je inzending is niet opgeslagen. Probeer het straks opnieuw.' },
  },
};
