import type { PageText } from './page-text.js';

export const it: PageText = {
  thanks: { title: 'Grazie!', message: 'Abbiamo ricevuto il tuo messaggio.' },
  formAddress: {
    title: 'Questo è l’indirizzo di un modulo',
    message: 'Questo indirizzo riceve gli invii di un modulo su un sito web. Compila quel modulo per inviare un messaggio.',
  },
  onwards:
    'Abbiamo ricevuto il tuo messaggio. Il proprietario del modulo vuole inviarti all’indirizzo qui sotto, che questo sito non ha verificato: prosegui solo se te lo aspettavi.',
  goBack: 'Indietro',
  backToForm: 'Torna al modulo',
  poweredBy: 'Realizzato con Formgate',
  error: { title: 'Qualcosa è andato storto', message: 'Non è stato possibile elaborare il tuo invio. Riprova più tardi.' },
  errors: {
    validation_error: { title: 'Non è stato possibile accettare il tuo invio', message: 'Controlla il modulo e riprova.' },
    captcha_failed: { title: 'Il CAPTCHA non è stato risolto', message: 'Completa il CAPTCHA e invia di nuovo il modulo.' },
    origin_not_allowed: { title: 'Questo modulo non può essere inviato da qui', message: 'Questo modulo accetta invii solo dal proprio sito web.' },
    not_found: { title: 'Modulo non trovato', message: 'Questo modulo non esiste o non accetta più invii.' },
    payload_too_large: { title: 'Invio troppo grande', message: 'L’invio è più grande di quanto questo modulo accetti.' },
    form_closed: { title: 'Questo modulo è chiuso', message: 'Questo modulo non accetta invii. Non è stato salvato nulla.' },
    quota_exceeded: { title: 'Il tuo invio non è stato accettato', message: 'Al momento questo modulo non accetta altri invii. Non è stato salvato nulla.' },
    rate_limited: { title: 'Troppi invii', message: 'Attendi un momento e riprova.' },
    unavailable: { title: 'Riprova tra un momento', message: 'Il tuo invio non è stato salvato. Riprova a breve.' },
  },
};
