import type { PageText } from './page-text.js';

export const fr: PageText = {
  thanks: { title: 'Merci !', message: 'Votre message a bien été reçu.' },
  formAddress: {
    title: 'Ceci est l’adresse d’un formulaire',
    message: 'Cette adresse reçoit les envois d’un formulaire sur un site web. Remplissez ce formulaire pour envoyer un message.',
  },
  onwards:
    'Votre message a bien été reçu. Le propriétaire du formulaire souhaite vous envoyer vers l’adresse ci-dessous, que ce site n’a pas vérifiée : ne continuez que si vous vous y attendiez.',
  goBack: 'Retour',
  backToForm: 'Retour au formulaire',
  poweredBy: 'Propulsé par Formgate',
  error: { title: 'Une erreur est survenue', message: 'Votre envoi n’a pas pu être traité. Veuillez réessayer plus tard.' },
  errors: {
    validation_error: { title: 'Votre envoi n’a pas pu être accepté', message: 'Veuillez vérifier le formulaire et réessayer.' },
    captcha_failed: { title: 'Le CAPTCHA n’a pas été résolu', message: 'Veuillez résoudre le CAPTCHA et envoyer le formulaire à nouveau.' },
    origin_not_allowed: { title: 'Ce formulaire ne peut pas être envoyé d’ici', message: 'Ce formulaire n’accepte que les envois de son propre site.' },
    not_found: { title: 'Formulaire introuvable', message: 'Ce formulaire n’existe pas ou n’accepte plus d’envois.' },
    payload_too_large: { title: 'Envoi trop volumineux', message: 'L’envoi dépasse la taille acceptée par ce formulaire.' },
    form_closed: { title: 'Ce formulaire est fermé', message: 'Ce formulaire n’accepte pas d’envois. Rien n’a été enregistré.' },
    quota_exceeded: { title: 'Votre envoi n’a pas été accepté', message: 'Ce formulaire n’accepte plus d’envois pour le moment. Rien n’a été enregistré.' },
    rate_limited: { title: 'Trop d’envois', message: 'Veuillez patienter un peu et réessayer.' },
    unavailable: { title: 'Réessayez dans un instant', message: 'Votre envoi n’a pas été enregistré. Veuillez réessayer sous peu.' },
  },
};
