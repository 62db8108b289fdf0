import type { PageText } from './page-text.js';

export const pl: PageText = {
  thanks: { title: 'Dziękujemy!', message: 'Twoja wiadomość została odebrana.' },
  formAddress: {
    title: 'To jest adres formularza',
    message: 'Ten adres odbiera zgłoszenia z formularza na stronie internetowej. Wypełnij ten formularz, aby wysłać wiadomość.',
  },
  onwards:
    'Twoja wiadomość została odebrana. Właściciel formularza chce Cię przekierować pod poniższy adres, którego ta strona nie sprawdziła: kontynuuj tylko, jeśli się tego spodziewałeś.',
  goBack: 'Wróć',
  backToForm: 'Wróć do formularza',
  poweredBy: 'Obsługiwane przez Formgate',
  error: { title: 'Coś poszło nie tak', message: 'Nie udało się przetworzyć zgłoszenia. Spróbuj ponownie później.' },
  errors: {
    validation_error: { title: 'Nie udało się przyjąć zgłoszenia', message: 'Sprawdź formularz i spróbuj ponownie.' },
    captcha_failed: { title: 'CAPTCHA nie została rozwiązana', message: 'Rozwiąż CAPTCHA i wyślij formularz ponownie.' },
    origin_not_allowed: { title: 'Tego formularza nie można wysłać z tego miejsca', message: 'Ten formularz przyjmuje zgłoszenia tylko z własnej strony.' },
    not_found: { title: 'Nie znaleziono formularza', message: 'Ten formularz nie istnieje lub nie przyjmuje już zgłoszeń.' },
    payload_too_large: { title: 'Zgłoszenie jest za duże', message: 'Zgłoszenie jest większe, niż ten formularz przyjmuje.' },
    form_closed: { title: 'Ten formularz jest zamknięty', message: 'Ten formularz nie przyjmuje zgłoszeń. Nic nie zostało zapisane.' },
    quota_exceeded: { title: 'Zgłoszenie nie zostało przyjęte', message: 'Ten formularz nie przyjmuje teraz kolejnych zgłoszeń. Nic nie zostało zapisane.' },
    rate_limited: { title: 'Zbyt wiele zgłoszeń', message: 'Odczekaj chwilę i spróbuj ponownie.' },
    unavailable: { title: 'Spróbuj ponownie za chwilę', message: 'Twoje zgłoszenie nie zostało zapisane. Spróbuj ponownie wkrótce.' },
  },
};
