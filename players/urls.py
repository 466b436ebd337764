from django.urls import path

from . import views

urlpatterns = [
    path("players", views.SignUpView.as_view(), name="players-sign-up"),
    path("auth/tokens", views.LoginTokenView.as_view(), name="auth-tokens"),
    path("me", views.MeView.as_view(), name="me"),
    path("me/tokens", views.TokensView.as_view(), name="me-tokens"),
    path("me/tokens/<int:token_id>", views.TokenDetailView.as_view(), name="me-token"),
]
